import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startApi, type ApiHarness } from '../../api/src/test-support/harness';
import { runAdmin } from './test-support/run-admin';

/** `template create|list|delete` and `transactional send|show` against a real database. */
describe('admin CLI: templates and transactionals', () => {
  let api: ApiHarness;
  let dir: string;
  beforeAll(async () => {
    api = await startApi();
    dir = await mkdtemp(join(tmpdir(), 'mailcast-template-'));
  });
  afterAll(async () => {
    await rm(dir, { recursive: true, force: true });
    await api.close();
  });

  const admin = (...argv: string[]) => runAdmin(api.database.url, [...argv, '--json']);
  const file = async (name: string, content: string) => {
    const path = join(dir, name);
    await writeFile(path, content);
    return path;
  };

  it('creates, lists and deletes templates; invalid Liquid is refused with where it is', async () => {
    const channel = String((await api.fixtures.aChannel()).id);
    const body = await file('body.txt', 'Hello {{ subscriber.first_name }}');
    const created = await admin('template', 'create', '--channel', channel, '--label', 'Welcome', '--subject', 'Hi', '--body-file', body);
    expect(created).toMatchObject({
      code: 0,
      json: { id: expect.any(Number), label: 'Welcome', subject: 'Hi', body: 'Hello {{ subscriber.first_name }}', template_purpose: 'broadcast' },
    });
    const confirmation = await admin(
      'template',
      'create',
      '--channel',
      channel,
      '--label',
      'Confirm',
      '--subject',
      'Confirm',
      '--body-file',
      body,
      '--purpose',
      'confirmation',
      '--default-confirmation',
    );
    expect(confirmation.json).toMatchObject({ template_purpose: 'confirmation', default_confirmation: true });

    const broken = await admin('template', 'create', '--channel', channel, '--label', 'Broken', '--body-file', await file('broken.txt', 'Hi {{ oops '));
    expect(broken.code).toBe(1);
    expect(JSON.stringify(broken.json)).toMatch(/is not valid Liquid.*line:1/);
    expect((await admin('template', 'create', '--channel', channel, '--label', 'x', '--purpose', 'other')).code).toBe(2);

    const listed = await admin('template', 'list', '--channel', channel);
    expect(listed.json.total).toBe(2);
    expect(listed.json.data.map((t: { label: string }) => t.label)).toEqual(['Confirm', 'Welcome']);
    expect(await admin('template', 'delete', '--channel', channel, '--id', String(created.json.id))).toMatchObject({ code: 0, json: { deleted: true } });
    expect((await admin('template', 'list', '--channel', channel)).json.total).toBe(1);
    // Another channel's template is not there for this one.
    const other = String((await api.fixtures.aChannel()).id);
    expect((await admin('template', 'delete', '--channel', other, '--id', String(confirmation.json.id))).code).toBe(1);
  });

  it('sends a transactional from a template and shows it; a suppressed address is not queued', async () => {
    const channel = await api.fixtures.aChannel();
    const id = String(channel.id);
    const template = await admin(
      'template',
      'create',
      '--channel',
      id,
      '--label',
      'Receipt',
      '--subject',
      'Receipt {{ data.n }}',
      '--body-file',
      await file('r.txt', 'Order {{ data.n }}'),
    );
    const sent = await admin(
      'transactional',
      'send',
      '--channel',
      id,
      '--to',
      'Buyer@Example.com',
      '--template',
      String(template.json.id),
      '--data',
      '{"n": 7}',
    );
    expect(sent).toMatchObject({ code: 0, json: { id: expect.any(Number), to: 'buyer@example.com', subject: 'Receipt {{ data.n }}', status: 'queued' } });
    const jobs = await api.database.db.raw(`SELECT count(*)::int AS n FROM pgboss.job WHERE name = 'transactionals.send' AND data->>'transactionalId' = ?`, [
      String(sent.json.id),
    ]);
    expect(jobs.rows[0].n).toBe(1);
    const shown = await admin('transactional', 'show', '--channel', id, '--id', String(sent.json.id));
    expect(shown.json).toEqual({ ...sent.json, message_id: null, sent_at: null, error: null, created_at: expect.any(String) });

    await api.database.db('suppressions').insert({ channel_id: channel.id, email: 'blocked@example.com', reason: 'manual', created_at: new Date() });
    const blocked = await admin('transactional', 'send', '--channel', id, '--to', 'blocked@example.com', '--subject', 'S', '--body', 'B');
    expect(blocked.json.status).toBe('suppressed');

    const unsubscribable = await admin(
      'transactional',
      'send',
      '--channel',
      id,
      '--to',
      'news@example.com',
      '--subject',
      'S',
      '--body',
      'B',
      '--include-unsubscribe-link',
    );
    expect(unsubscribable.code).toBe(0);
    const flags = await api.database.db('transactionals').whereIn('id', [sent.json.id, unsubscribable.json.id]).orderBy('id').pluck('include_unsubscribe_link');
    expect(flags).toEqual([false, true]);

    const badData = await admin('transactional', 'send', '--channel', id, '--to', 'x@example.com', '--subject', 'S', '--body', 'B', '--data', '[1]');
    expect([badData.code, JSON.stringify(badData.json)]).toEqual([1, expect.stringContaining('must be an object')]);
    const noBody = await admin('transactional', 'send', '--channel', id, '--to', 'x@example.com', '--subject', 'S');
    expect(JSON.stringify(noBody.json)).toContain("can't be blank");
    expect(await api.database.db('transactionals').where({ to_email: 'x@example.com' })).toEqual([]);
  });
});
