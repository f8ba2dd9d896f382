import { createDatabase, loadConfig, migrate, loadDevkitPackage, resolveDatabase } from '@mailcast/adapters';

/** `npm run migrate`: the knex migrations and pg-boss's schema on DATABASE_URL (or the embedded one). */
async function main(): Promise<void> {
  const config = loadConfig();
  const database = await resolveDatabase(config.databaseUrl, loadDevkitPackage);
  const db = createDatabase(database.url, { poolMax: 2 });
  try {
    const { applied } = await migrate(db, database.url);
    process.stdout.write(applied.length === 0 ? 'database is up to date\n' : `applied ${applied.length} migration(s):\n  ${applied.join('\n  ')}\n`);
  } finally {
    await db.destroy();
    await database.stop();
  }
}

main().catch((error: unknown) => {
  process.stderr.write(`migrate failed: ${error instanceof Error ? error.message : String(error)}\n`);
  process.exitCode = 1;
});
