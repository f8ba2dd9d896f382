import { ConfigError } from '../config';

/** The database a process runs against, and how to let go of it when it stops. */
export interface ResolvedDatabase {
  url: string;
  stop(): Promise<void>;
}

/** What a process needs from `@mailcast/devkit` when DATABASE_URL is unset. */
export interface DevelopmentDatabase {
  resolveDatabase(databaseUrl: undefined, env?: NodeJS.ProcessEnv): Promise<ResolvedDatabase>;
}

/**
 * Imports the devkit. Its name is in a variable so that nothing needs the (development) package
 * to build or type-check: an installation without it only fails when it is asked for.
 */
const DEVKIT = '@mailcast/devkit';
export const loadDevkitPackage = (): Promise<DevelopmentDatabase> => import(DEVKIT) as Promise<DevelopmentDatabase>;

const isMissing = (error: unknown) => {
  const code = (error as { code?: unknown } | null)?.code;
  return code === 'ERR_MODULE_NOT_FOUND' || code === 'MODULE_NOT_FOUND';
};

/**
 * DATABASE_URL when set. Otherwise the embedded PostgreSQL under `.data/`, from the devkit, a
 * development dependency that `loadDevkit` imports only then: an installation without
 * development dependencies (the Docker image) has none and must set DATABASE_URL.
 */
export async function resolveDatabase(
  databaseUrl: string | undefined,
  loadDevkit: () => Promise<DevelopmentDatabase>,
  env: NodeJS.ProcessEnv = process.env,
): Promise<ResolvedDatabase> {
  if (databaseUrl !== undefined) return { url: databaseUrl, stop: async () => undefined };
  let devkit: DevelopmentDatabase;
  try {
    devkit = await loadDevkit();
  } catch (error) {
    if (!isMissing(error)) throw error;
    throw new ConfigError(
      'Invalid configuration: "DATABASE_URL" is required; the embedded PostgreSQL is a development dependency that this installation leaves out',
    );
  }
  return devkit.resolveDatabase(undefined, env);
}
