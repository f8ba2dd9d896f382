import { randomBytes } from 'node:crypto';
import { createTestDatabase, eventually, spawnBuilt, type TestDatabase } from '@mailcast/testkit';

/** `npm run start:api`: the api process alone (docs/operations.md), as production runs it. */
describe('the api process', () => {
  let database: TestDatabase;
  beforeAll(async () => {
    database = await createTestDatabase();
  });
  afterAll(() => database.drop());

  it('serves on PORT (0: a free port, which it logs), is ready, and drains on SIGTERM', async () => {
    // PORT=0: the system picks a free port and the api says which. A port picked here and handed
    // over could be taken by another test's process in between.
    const api = spawnBuilt('apps/api/dist/main.js', {
      ...process.env,
      DATABASE_URL: database.url,
      PORT: '0',
      NODE_ENV: 'production',
      MAILCAST_SECRET_KEY: randomBytes(32).toString('base64'),
    });
    let port = 0;
    try {
      port = Number(await eventually(async () => /api listening on http:\/\/localhost:(\d+)/.exec(api.output())?.[1]));
      const ready = await eventually(async () => {
        const res = await fetch(`http://127.0.0.1:${port}/readyz`);
        return res.ok ? ((await res.json()) as unknown) : undefined;
      });
      expect(ready).toEqual({ status: 'ready', checks: { database: true, migrations: true } });
      const unauthorized = await fetch(`http://127.0.0.1:${port}/api/v1/broadcasts`);
      expect(unauthorized.status).toBe(401);
    } finally {
      api.child.kill('SIGTERM');
    }
    expect(await api.exited).toBe(0);
    // Production logs are JSON lines: every line of output parses.
    const messages = api
      .output()
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line).message as string);
    expect(messages).toContain(`api listening on http://localhost:${port}`);
    expect(messages.some((m) => /^GET \/api\/v1\/broadcasts 401 \d+\.\dms$/.test(m))).toBe(true);
    expect(messages.at(-1)).toBe('api stopped');
  });

  it('refuses a bad configuration with the variable named and exit 1', async () => {
    const api = spawnBuilt('apps/api/dist/main.js', { ...process.env, DATABASE_URL: database.url, PORT: 'http' });
    expect(await api.exited).toBe(1);
    expect(api.output()).toContain('failed to start: Invalid configuration: "PORT" must be a number');
    expect(api.output()).not.toMatch(/\n\s+at /);
  });
});
