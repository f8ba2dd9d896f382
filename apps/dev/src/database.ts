import { dataDirectory, embeddedPort, startEmbeddedPostgres } from '@mailcast/devkit';
import path from 'node:path';

/**
 * The embedded PostgreSQL of `npm start`, in its own process group so that Ctrl-C reaches
 * the orchestrator first: the database stops last, after the api and the dispatcher.
 * Reports its connection string to the parent over IPC.
 */
async function main(): Promise<void> {
  const database = await startEmbeddedPostgres({
    dataDir: path.join(dataDirectory(), 'postgres'),
    port: embeddedPort(),
  });
  let stopping = false;
  const stop = () => {
    if (stopping) return;
    stopping = true;
    void database.stop().finally(() => process.exit(0));
  };
  process.on('SIGTERM', stop);
  process.on('SIGINT', stop);
  process.on('disconnect', stop);
  process.send?.({ url: database.url, owned: database.owned });
}

main().catch((error: unknown) => {
  process.send?.({ error: error instanceof Error ? error.message : String(error) });
  process.exit(1);
});
