import { createBoss } from '../queue/boss';
import { createTestDatabase, Fixtures, type TestDatabase } from '@mailcast/testkit';
import { randomBytes } from 'node:crypto';
import { pgRepositories } from '../pg/pg-transactor';
import { resealSecrets } from './reseal-secrets';
import { SecretBox, secretKeyId } from './secret-box';

/** Rows written before encryption at rest, then sealed; then a key change (docs/secrets.md). */
describe('resealSecrets', () => {
  let database: TestDatabase;
  const tracking = randomBytes(32);
  let ids: { server: number; endpoint: number; broadcast: number; transactional?: number };
  const unsubscribe = randomBytes(32);

  beforeAll(async () => {
    database = await createTestDatabase();
    const fixtures = new Fixtures(database.db, createBoss(database.url, 'api'));
    const channel = await fixtures.aChannel();
    const broadcast = await fixtures.aBroadcast(channel.id);
    const db = database.db;
    const [server] = await db('email_servers')
      .insert({ channel_id: channel.id, host: 'smtp.example.com', port: 587, username: 'u', password: 'legacy-password' })
      .returning('id');
    const [endpoint] = await db('webhook_endpoints')
      .insert({ channel_id: channel.id, url: 'https://example.com/h', event_types: ['test.webhook'], secret: 'whsec_legacy' })
      .returning('id');
    await db('broadcasts')
      .where({ id: broadcast.id })
      .update({ tracking_secret: tracking.toString('base64') });
    ids = { server: Number(server.id), endpoint: Number(endpoint.id), broadcast: broadcast.id };
  });
  afterAll(() => database.drop());

  const stored = async () => ({
    password: (await database.db('email_servers').where({ id: ids.server }).first('password')).password as string,
    secret: (await database.db('webhook_endpoints').where({ id: ids.endpoint }).first('secret')).secret as string,
    tracking: (await database.db('broadcasts').where({ id: ids.broadcast }).first('tracking_secret')).tracking_secret as string,
    ...(ids.transactional === undefined
      ? {}
      : { unsubscribe: (await database.db('transactionals').where({ id: ids.transactional }).first('unsubscribe_secret')).unsubscribe_secret as string }),
  });

  const plaintexts = async (box: SecretBox) => {
    const repositories = pgRepositories(database.db, createBoss(database.url, 'api'), box);
    const server = await repositories.emailServers.listForChannel((await database.db('channels').first('id')).id);
    const endpoint = await database.db('webhook_endpoints').where({ id: ids.endpoint }).first('channel_id');
    return {
      password: server[0]!.password,
      secret: (await repositories.webhookEndpoints.findById(endpoint.channel_id, ids.endpoint))!.secret,
      tracking: Buffer.from(await repositories.recipients.trackingSecret(ids.broadcast, randomBytes(32))).toString('hex'),
      ...(ids.transactional === undefined
        ? {}
        : { unsubscribe: Buffer.from((await repositories.transactionals.findUnsubscribeTarget(ids.transactional))!.secret!).toString('hex') }),
    };
  };
  const original = { password: 'legacy-password', secret: 'whsec_legacy', tracking: tracking.toString('hex') };
  /** The plaintexts, with the transactional's once it is written. */
  const originals = () => (ids.transactional === undefined ? original : { ...original, unsubscribe: unsubscribe.toString('hex') });

  const oldKey = randomBytes(32);
  const newKey = randomBytes(32);

  it('seals plaintext rows, and the repositories read the same values as before', async () => {
    const box = new SecretBox(oldKey);
    expect(await plaintexts(box)).toEqual(original);
    expect(await resealSecrets(database.db, box, 'plaintext')).toEqual({ sealed: 3, reencrypted: 0 });
    const now = await stored();
    for (const value of Object.values(now)) expect(value).toMatch(new RegExp(`^mcs1\\.${secretKeyId(oldKey)}\\.`));
    expect(JSON.stringify(now)).not.toMatch(/legacy|whsec_/);
    expect(await plaintexts(box)).toEqual(original);
    expect(await resealSecrets(database.db, box, 'plaintext')).toEqual({ sealed: 0, reencrypted: 0 });
  });

  it("seals a transactional's unsubscribe secret from its first write", async () => {
    const box = new SecretBox(oldKey);
    const repositories = pgRepositories(database.db, createBoss(database.url, 'api'), box);
    const channelId = (await database.db('channels').first('id')).id as number;
    const subscriber = await new Fixtures(database.db, createBoss(database.url, 'api')).aSubscriber(channelId, 'r@example.com');
    const fields = {
      channelId,
      subscriberId: subscriber.id,
      to: 'r@example.com',
      subject: 'S',
      preheader: null,
      body: 'B',
      htmlBody: null,
      replyTo: null,
      data: {},
    };
    const more = { includeUnsubscribeLink: true, unsubscribeSecret: unsubscribe, emailServerId: null, templateId: null, status: 'queued' as const };
    ids.transactional = (await repositories.transactionals.create({ ...fields, ...more }, new Date())).id;
    expect((await stored()).unsubscribe).toMatch(new RegExp(`^mcs1\\.${secretKeyId(oldKey)}\\.`));
    expect(await plaintexts(box)).toEqual(originals());
  });

  it('re-encrypts values of a previous key under the current one, after which the old key can go', async () => {
    const rotating = new SecretBox(newKey, [oldKey]);
    expect(await resealSecrets(database.db, rotating, 'plaintext')).toEqual({ sealed: 0, reencrypted: 0 });
    expect(await resealSecrets(database.db, rotating, 'all')).toEqual({ sealed: 0, reencrypted: 4 });
    const now = await stored();
    expect(Object.keys(now)).toHaveLength(4);
    for (const value of Object.values(now)) expect(value).toMatch(new RegExp(`^mcs1\\.${secretKeyId(newKey)}\\.`));
    expect(await plaintexts(new SecretBox(newKey))).toEqual(originals());
    await expect(plaintexts(new SecretBox(oldKey))).rejects.toThrow(/neither MAILCAST_SECRET_KEY nor in MAILCAST_SECRET_KEYS_PREVIOUS/);
  });
});
