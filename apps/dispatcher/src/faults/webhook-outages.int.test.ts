import { createBoss } from '@mailcast/adapters';
import { createTestDatabase, dispatcherProcesses, eventually, Fixtures, suiteResource } from '@mailcast/testkit';
import { randomBytes } from 'node:crypto';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Knex } from 'knex';
import { RestartableDatabase } from '../test-support/private-cluster';

/**
 * First attempts a dispatcher holds in memory carry a short lease in database time, renewed
 * while held (docs/sending-reliability.md): a dispatcher killed while holding them has them
 * delivered by another within seconds, and an attempt whose answer is known when the database
 * goes away is recorded once it is back, not POSTed again.
 */

/** A webhook receiver answering 200 after `delayMs`, or never while `hang` says so. */
async function slowReceiver(delayMs: number) {
  const ids: string[] = [];
  const open = new Set<http.ServerResponse>();
  const state = { hang: false };
  const server = http.createServer((req, res) => {
    req.resume();
    req.on('end', () => {
      ids.push(String(req.headers['broadcast-webhook-id']));
      if (state.hang) {
        open.add(res);
        res.on('close', () => open.delete(res));
        return;
      }
      setTimeout(() => res.writeHead(200).end('ok'), delayMs);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    state,
    ids,
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/events`,
    async close() {
      for (const res of open) res.destroy();
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

/** What the dispatchers here add to spawnDispatcher's environment. */
const WEBHOOK_ENV = { WEBHOOK_ALLOW_PRIVATE: 'true', WEBHOOK_TIMEOUT_MS: '20000' };

async function anEndpoint(db: Knex, fixtures: Fixtures, url: string): Promise<number> {
  const channel = await fixtures.aChannel();
  await db('webhook_endpoints').insert({
    channel_id: channel.id,
    url,
    event_types: ['subscriber.created'],
    retries_to_attempt: 20,
    secret: `whsec_${randomBytes(32).toString('base64')}`,
  });
  return channel.id;
}

const events = (db: Knex, channelId: number, count: number) =>
  db('events').insert(Array.from({ length: count }, (_, i) => ({ channel_id: channelId, type: 'subscriber.created', data: { i }, created_at: new Date() })));

/** A test database, pg-boss on it (as the api has) and a receiver answering after `delayMs`, for the enclosing describe. */
function useWebhookStack(delayMs: number) {
  return suiteResource(
    async () => {
      const database = await createTestDatabase();
      const boss = createBoss(database.url, 'api');
      await boss.start();
      return { database, boss, receiver: await slowReceiver(delayMs) };
    },
    async ({ database, boss, receiver }) => {
      await receiver.close();
      await boss.stop({ graceful: false, close: true, wait: true });
      await database.drop();
    },
  );
}

describe('a dispatcher killed while holding first attempts', () => {
  const dispatchers = dispatcherProcesses('all');
  const stack = useWebhookStack(0);

  it('has them delivered by another dispatcher within 30 s', async () => {
    const { database, boss, receiver } = stack;
    const channelId = await anEndpoint(database.db, new Fixtures(database.db, boss), receiver.url);
    receiver.state.hang = true;
    const holder = dispatchers.start(database.url, WEBHOOK_ENV);
    await events(database.db, channelId, 20);
    // Every first attempt is held by the holder: eight in flight (its endpoint not answering),
    // the rest waiting for their turn.
    await eventually(
      async () => {
        const rows = await database.db('webhook_deliveries').where({ channel_id: channelId }).count({ n: '*' });
        return receiver.ids.length >= 8 && Number(rows[0]!.n) === 20 ? true : undefined;
      },
      30_000,
      50,
    );
    const other = dispatchers.start(database.url, { ...WEBHOOK_ENV, LOG_LEVEL: 'info' });
    await eventually(async () => (other.output().includes('dispatcher working') ? true : undefined), 30_000, 50);
    holder.child.kill('SIGKILL');
    await holder.exited;
    const killedAt = Date.now();
    receiver.state.hang = false;

    await eventually(
      async () => {
        const rows = await database.db('webhook_deliveries').where({ channel_id: channelId, status: 'succeeded' }).count({ n: '*' });
        return Number(rows[0]!.n) === 20 ? true : undefined;
      },
      30_000,
      100,
    );
    const seconds = (Date.now() - killedAt) / 1000;
    process.stdout.write(`first attempts of a SIGKILLed dispatcher delivered by the other ${seconds.toFixed(1)} s after the kill\n`);
    expect(seconds).toBeLessThan(30);
  }, 90_000);
});

describe('PostgreSQL stopped during a webhook burst, two dispatchers', () => {
  const EVENTS = 400;
  const pg = new RestartableDatabase();
  let receiver: Awaited<ReturnType<typeof slowReceiver>>;
  const dispatchers = dispatcherProcesses('all');

  beforeAll(async () => {
    await pg.start();
    receiver = await slowReceiver(200);
  }, 60_000);
  afterAll(async () => {
    await receiver?.close();
    await pg.close();
  }, 60_000);

  it('delivers every event once', async () => {
    const channelId = await anEndpoint(pg.db, new Fixtures(pg.db, pg.boss), receiver.url);
    dispatchers.start(pg.url, WEBHOOK_ENV);
    dispatchers.start(pg.url, WEBHOOK_ENV);
    await events(pg.db, channelId, EVENTS);
    await eventually(async () => (receiver.ids.length >= 60 ? true : undefined), 30_000, 10);
    expect(receiver.ids.length).toBeLessThan(EVENTS);
    const { restartedAt } = await pg.outage(3_000);

    await eventually(
      async () => {
        const rows = await pg
          .db('webhook_deliveries')
          .where({ channel_id: channelId, status: 'succeeded' })
          .count({ n: '*' })
          .catch(() => undefined);
        return rows && Number(rows[0]!.n) === EVENTS ? true : undefined;
      },
      60_000,
      100,
    );
    const seconds = (Date.now() - restartedAt) / 1000;
    const duplicates = receiver.ids.length - new Set(receiver.ids).size;
    const eventIds = (await pg.db('events').where({ channel_id: channelId }).pluck('id')).map(String);
    const lost = eventIds.filter((id) => !receiver.ids.includes(id)).length;
    process.stdout.write(
      `webhook burst, PostgreSQL away 3 s: ${receiver.ids.length} POSTs, ${duplicates} duplicates, ${lost} lost, all recorded ${seconds.toFixed(1)} s after the restart\n`,
    );
    expect({ duplicates, lost }).toEqual({ duplicates: 0, lost: 0 });
    for (const d of dispatchers.running) expect(d.child.exitCode).toBeNull();
  }, 120_000);
});

describe('a dispatcher stopped with SIGTERM while webhook POSTs are in flight', () => {
  const DELAY_MS = 1_500;
  const dispatchers = dispatcherProcesses('all');
  const stack = useWebhookStack(DELAY_MS);

  it('exits 0 once every POST it made is answered and recorded, fails none for the stop, and POSTs nothing twice', async () => {
    const { database, boss, receiver } = stack;
    const channelId = await anEndpoint(database.db, new Fixtures(database.db, boss), receiver.url);
    const first = dispatchers.start(database.url, WEBHOOK_ENV);
    await events(database.db, channelId, 20);
    // POSTs reached the receiver, which answers each 1.5 s later: they are in flight on the
    // dispatcher's webhook thread when it is told to stop.
    await eventually(async () => (receiver.ids.length >= 4 ? true : undefined), 30_000, 10);
    const inFlight = [...receiver.ids];
    first.child.kill('SIGTERM');
    expect(await first.exited).toBe(0);

    // It stopped claiming and finished the attempts it held (docs/webhooks.md): every POST the
    // receiver took, those in flight at the signal first, was answered and recorded before the exit.
    const succeeded = (await database.db('webhook_deliveries').where({ channel_id: channelId, status: 'succeeded' }).pluck('event_id')).map(String);
    expect(succeeded).toEqual(expect.arrayContaining(inFlight));
    expect([...succeeded].sort()).toEqual([...new Set(receiver.ids)].sort());

    // Whatever it had not claimed is another dispatcher's.
    const stoppedAt = Date.now();
    dispatchers.start(database.url, WEBHOOK_ENV);
    await eventually(
      async () => {
        const rows = await database.db('webhook_deliveries').where({ channel_id: channelId, status: 'succeeded' }).count({ n: '*' });
        return Number(rows[0]!.n) === 20 ? true : undefined;
      },
      30_000,
      50,
    );
    const eventIds = (await database.db('events').where({ channel_id: channelId }).pluck('id')).map(String);
    expect([...receiver.ids].sort()).toEqual([...eventIds].sort());
    // The stop cost no delivery a failed attempt (and so no wait for a retry).
    const attempts = await database.db('webhook_deliveries').where({ channel_id: channelId }).pluck('attempt_number');
    expect(attempts).toEqual(Array(20).fill(1));
    process.stdout.write(
      `SIGTERM with ${inFlight.length} webhook POSTs in flight: ${succeeded.length} of 20 recorded by the exit, all 20 ${((Date.now() - stoppedAt) / 1000).toFixed(1)} s after it\n`,
    );
  }, 90_000);
});
