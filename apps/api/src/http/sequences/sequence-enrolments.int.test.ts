import request from 'supertest';
import { Repositories } from '@mailcast/core';
import { useApi } from '../../test-support/harness';

/** docs/sequences.md: enrolments through the API, the tag trigger, the leaving rules, pause and resume. */
describe('sequence enrolments', () => {
  const api = useApi();
  let token: string;
  let channelId: number;

  beforeAll(async () => {
    const tenant = await api.fixtures.aTenant();
    token = tenant.token;
    channelId = tenant.channel.id;
  });

  const as = () => ({
    get: (path: string) => request(api.app).get(path).set('Authorization', `Bearer ${token}`),
    post: (path: string, body: object = {}) => request(api.app).post(path).set('Authorization', `Bearer ${token}`).send(body),
    patch: (path: string, body: object) => request(api.app).patch(path).set('Authorization', `Bearer ${token}`).send(body),
    delete: (path: string, body: object = {}) => request(api.app).delete(path).set('Authorization', `Bearer ${token}`).send(body),
  });

  const newSequence = async (body: object = {}) => (await as().post('/api/v1/sequences', body)).body.id as number;
  const entryOf = async (id: number) => (await as().get(`/api/v1/sequences/${id}/steps`)).body.data[0].id as number;
  const enrol = (id: number, body: object) => as().post(`/api/v1/sequences/${id}/add_subscriber`, body);
  /** The sequence events of one sequence, oldest first, as [type, status, email]. */
  const events = async (sequenceId: number) => {
    const rows = (await api.database
      .db('events')
      .where({ channel_id: channelId })
      .whereLike('type', 'sequence.%')
      .whereRaw(`(data->>'sequence_id')::bigint = ?`, [sequenceId])
      .orderBy('id')
      .select('type', 'data')) as Array<{ type: string; data: { status: string; subscriber: { email: string } } }>;
    return rows.map((r) => [r.type, r.data.status, r.data.subscriber.email]);
  };
  /** An enrolment's status, by the subscriber's address or id (a redacted address is a placeholder). */
  const statusOf = async (sequenceId: number, who: string | number) => {
    const row = await api.database
      .db('subscriber_sequences as e')
      .join('subscribers as s', 's.id', 'e.subscriber_id')
      .where({ 'e.sequence_id': sequenceId, 's.channel_id': channelId, ...(typeof who === 'number' ? { 's.id': who } : { 's.email': who }) })
      .first('e.status');
    return (row as { status: string } | undefined)?.status ?? null;
  };

  it('enrols through add_subscriber: a new subscriber, at the entry point, due now, with its event', async () => {
    const id = await newSequence({ active: true });
    const entry = await entryOf(id);
    const before = Date.now();
    const added = await enrol(id, { subscriber: { email: 'New@Example.com', first_name: 'Nia', tags: ['x'] } });
    expect(added.status).toBe(201);
    expect(added.body).toEqual({
      id: expect.any(Number),
      status: 'active',
      started_at: expect.any(String),
      completed_at: null,
      next_trigger_at: expect.any(String),
      current_step_id: entry,
      subscriber: { id: expect.any(Number), email: 'new@example.com' },
    });
    expect(Date.parse(added.body.next_trigger_at)).toBeGreaterThanOrEqual(before - 1000);
    expect(Date.parse(added.body.next_trigger_at)).toBeLessThanOrEqual(Date.now() + 1000);
    const subscriber = await as().get('/api/v1/subscribers/find.json?email=new@example.com');
    expect(subscriber.body).toMatchObject({ first_name: 'Nia', tags: ['x'] });
    const event = await api.database.db('events').where({ channel_id: channelId, type: 'sequence.subscriber_added' }).orderBy('id', 'desc').first('data');
    expect(event.data).toEqual({
      sequence_id: id,
      subscriber_sequence_id: added.body.id,
      status: 'active',
      step_id: entry,
      subscriber: { id: added.body.subscriber.id, email: 'new@example.com' },
    });
    expect((await as().get(`/api/v1/sequences/${id}`)).body.subscribers_count).toBe(1);
  });

  it('answers already_enrolled, refuses an ended enrolment unless restarted, and an inactive subscriber', async () => {
    const id = await newSequence({ active: true });
    expect((await enrol(id, { email: 'ann@example.com' })).status).toBe(201);
    const again = await enrol(id, { email: 'ann@example.com' });
    expect([again.status, again.body.warnings]).toEqual([200, [{ code: 'already_enrolled', param: 'email', message: expect.any(String) }]]);

    const removed = await as().delete(`/api/v1/sequences/${id}/remove_subscriber`, { subscriber: { email: 'ann@example.com' } });
    expect(removed.body).toEqual({
      message: 'Subscriber removed from sequence',
      subscriber_sequence: expect.objectContaining({ status: 'removed', next_trigger_at: null }),
    });
    expect((await as().delete(`/api/v1/sequences/${id}/remove_subscriber`, { email: 'ann@example.com' })).status).toBe(404);
    expect((await as().delete(`/api/v1/sequences/${id}/remove_subscriber`, { email: 'nobody@example.com' })).status).toBe(404);

    const refused = await enrol(id, { email: 'ann@example.com' });
    expect([refused.status, refused.body]).toEqual([422, { error: 'Subscriber has already completed this sequence' }]);
    const restarted = await enrol(id, { email: 'ann@example.com', restart: true });
    expect([restarted.status, restarted.body.status, restarted.body.id]).toEqual([201, 'active', removed.body.subscriber_sequence.id]);
    expect(await events(id)).toEqual([
      ['sequence.subscriber_added', 'active', 'ann@example.com'],
      ['sequence.subscriber_removed', 'removed', 'ann@example.com'],
      ['sequence.subscriber_added', 'active', 'ann@example.com'],
    ]);

    await api.fixtures.aSubscriber(channelId, 'off@example.com', { isActive: false });
    const inactive = await enrol(id, { email: 'off@example.com' });
    expect([inactive.status, inactive.body]).toEqual([422, { error: 'Subscriber is not active' }]);
    expect((await enrol(id, { email: 'not an address' })).status).toBe(422);
    // The document marks email required; the answer to its absence stays the field's blank message.
    for (const body of [{}, { subscriber: { first_name: 'Ann' } }, { email: ' ' }]) {
      const blank = await enrol(id, body);
      expect([blank.status, blank.body]).toEqual([422, { errors: { email: ["can't be blank"] } }]);
    }
    const unnamed = await as().delete(`/api/v1/sequences/${id}/remove_subscriber`, {});
    expect([unnamed.status, unnamed.body]).toEqual([422, { errors: { email: ["can't be blank"] } }]);
    expect((await enrol(999_999, { email: 'ann@example.com' })).status).toBe(404);
  });

  it('lists enrolments newest first, 10 a page, by status', async () => {
    const id = await newSequence({ active: true });
    for (let i = 0; i < 12; i++) await enrol(id, { email: `p${i}@example.com` });
    await as().delete(`/api/v1/sequences/${id}/remove_subscriber`, { email: 'p0@example.com' });
    const first = await as().get(`/api/v1/sequences/${id}/list_subscribers`);
    expect(first.body.pagination).toEqual({ prev: null, next: 2, count: 12, pages: 2, page: 1 });
    expect(first.body.subscriber_sequences.map((e: { subscriber: { email: string } }) => e.subscriber.email)).toEqual(
      Array.from({ length: 10 }, (_, i) => `p${11 - i}@example.com`),
    );
    const second = await as().get(`/api/v1/sequences/${id}/list_subscribers?page=2`);
    expect([second.body.subscriber_sequences.length, second.body.pagination]).toEqual([2, { prev: 1, next: null, count: 12, pages: 2, page: 2 }]);
    const removed = await as().get(`/api/v1/sequences/${id}/list_subscribers?status=removed`);
    expect(removed.body.subscriber_sequences).toEqual([
      expect.objectContaining({ status: 'removed', subscriber: expect.objectContaining({ email: 'p0@example.com' }) }),
    ]);
    expect((await as().get(`/api/v1/sequences/${id}/list_subscribers?status=lost`)).status).toBe(422);
    expect((await as().get(`/api/v1/sequences/${id}`)).body.subscribers_count).toBe(11);
  });

  it('enrols on the init_tag by any path, exactly, only active sequences, and removes when the tag goes', async () => {
    const id = await newSequence({ active: true, init_tag: 'vip' });
    const off = await newSequence({ active: false, init_tag: 'vip' });
    await api.fixtures.aSubscriber(channelId, 'before@example.com', { tags: ['early'] });
    await newSequence({ active: true, init_tag: 'early' });

    await as().post('/api/v1/subscribers.json', { subscriber: { email: 'created@example.com', tags: ['vip'] } });
    await as().post('/api/v1/subscribers.json', { subscriber: { email: 'upper@example.com', tags: ['VIP'] } });
    await as().post('/api/v1/subscribers.json', { subscriber: { email: 'tagged@example.com' } });
    await as().post('/api/v1/subscribers/add_tag.json', { email: 'tagged@example.com', tags: ['vip'] });
    await as().post('/api/v1/subscribers.json', { subscriber: { email: 'patched@example.com' } });
    await as().patch('/api/v1/subscribers.json', { email: 'patched@example.com', subscriber: { tags: ['vip', 'other'] } });
    expect(await statusOf(id, 'created@example.com')).toBe('active');
    expect(await statusOf(id, 'tagged@example.com')).toBe('active');
    expect(await statusOf(id, 'patched@example.com')).toBe('active');
    expect(await statusOf(id, 'upper@example.com')).toBeNull();
    expect(await statusOf(off, 'created@example.com')).toBeNull();
    // Tagged before the sequence existed: not enrolled.
    expect(
      (await api.database.db('subscriber_sequences as e').join('subscribers as s', 's.id', 'e.subscriber_id').where('s.email', 'before@example.com')).length,
    ).toBe(0);

    const removed = await as().delete('/api/v1/subscribers/remove_tag.json', { email: 'tagged@example.com', tags: ['vip'] });
    expect(removed.status).toBe(200);
    expect(await statusOf(id, 'tagged@example.com')).toBe('removed');
    expect(await events(id)).toEqual([
      ['sequence.subscriber_added', 'active', 'created@example.com'],
      ['sequence.subscriber_added', 'active', 'tagged@example.com'],
      ['sequence.subscriber_added', 'active', 'patched@example.com'],
      ['sequence.subscriber_removed', 'removed', 'tagged@example.com'],
    ]);
  });

  it('enrols every subscriber a bulk statement tags (as an import writes), each with its event', async () => {
    const id = await newSequence({ active: true, init_tag: 'bulk' });
    for (const n of [1, 2, 3]) await api.fixtures.aSubscriber(channelId, `bulk${n}@example.com`);
    await api.database
      .db('subscribers')
      .where({ channel_id: channelId })
      .whereLike('email', 'bulk%')
      .update({
        tags: api.database.db.raw(`array_append(tags, 'bulk')`),
        updated_at: new Date(),
      });
    expect((await events(id)).map((e) => e[2]).sort()).toEqual(['bulk1@example.com', 'bulk2@example.com', 'bulk3@example.com']);
  });

  it.each([
    ['unsubscribe', (email: string) => ['post', '/api/v1/subscribers/unsubscribe.json', { email }] as const],
    ['deactivate', (email: string) => ['post', '/api/v1/subscribers/deactivate.json', { email }] as const],
    ['redact', (email: string) => ['post', '/api/v1/subscribers/redact.json', { email }] as const],
  ])('%s removes the subscriber from every sequence, and coming back does not re-enrol', async (name, call) => {
    const email = `${name}@example.com`;
    const a = await newSequence({ active: true, init_tag: `t-${name}` });
    const b = await newSequence({ active: false });
    const done = await newSequence({ active: true });
    const subscriberId = (await as().post('/api/v1/subscribers.json', { subscriber: { email, tags: [`t-${name}`] } })).body.id as number;
    await enrol(b, { email });
    await enrol(done, { email });
    await as().delete(`/api/v1/sequences/${done}/remove_subscriber`, { email });
    const [method, path, body] = call(email);
    expect((await as()[method](path, body)).status).toBe(200);
    expect([await statusOf(a, subscriberId), await statusOf(b, subscriberId), await statusOf(done, subscriberId)]).toEqual(['removed', 'removed', 'removed']);
    const placeholder = name === 'redact' ? expect.any(String) : email;
    expect((await events(a)).at(-1)).toEqual(['sequence.subscriber_removed', 'removed', placeholder]);
    expect((await events(b)).at(-1)).toEqual(['sequence.subscriber_removed', 'removed', placeholder]);
    expect(await events(done)).toHaveLength(2);
    if (name !== 'redact') {
      await as().post(`/api/v1/subscribers/${name === 'unsubscribe' ? 'resubscribe' : 'activate'}.json`, { email });
      expect(await statusOf(a, email)).toBe('removed');
    }
  });

  it('a hard bounce or complaint (the sending pipeline deactivating the subscriber) removes them too', async () => {
    const id = await newSequence({ active: true });
    const subscriber = (await enrol(id, { email: 'bounced@example.com' })).body.subscriber.id as number;
    await api.container.resolve<Repositories>(Repositories).recipients.deactivateSubscriber(subscriber, new Date());
    expect(await statusOf(id, subscriber)).toBe('removed');
    expect((await events(id)).at(-1)).toEqual(['sequence.subscriber_removed', 'removed', 'bounced@example.com']);
  });

  it('pauses every enrolment when switched off and resumes them when switched on, each with its event', async () => {
    const id = await newSequence({ active: true });
    for (const n of [1, 2, 3]) await enrol(id, { email: `pause${n}@example.com` });
    await as().delete(`/api/v1/sequences/${id}/remove_subscriber`, { email: 'pause3@example.com' });
    expect((await as().patch(`/api/v1/sequences/${id}`, { active: false })).body.subscribers_count).toBe(2);
    expect([await statusOf(id, 'pause1@example.com'), await statusOf(id, 'pause3@example.com')]).toEqual(['paused', 'removed']);
    // Enrolled while switched off: it waits, paused, like the rest.
    expect((await enrol(id, { email: 'late@example.com' })).body.status).toBe('paused');
    await as().patch(`/api/v1/sequences/${id}`, { active: true });
    expect((await events(id)).slice(4)).toEqual([
      ['sequence.subscriber_paused', 'paused', 'pause1@example.com'],
      ['sequence.subscriber_paused', 'paused', 'pause2@example.com'],
      ['sequence.subscriber_added', 'paused', 'late@example.com'],
      ['sequence.subscriber_resumed', 'active', 'pause1@example.com'],
      ['sequence.subscriber_resumed', 'active', 'pause2@example.com'],
      ['sequence.subscriber_resumed', 'active', 'late@example.com'],
    ]);
    // A PATCH that leaves `active` alone emits nothing.
    await as().patch(`/api/v1/sequences/${id}`, { active: true, label: 'same' });
    expect(await events(id)).toHaveLength(10);
  });

  it('moves enrolments waiting on a deleted step to its replacement, due now', async () => {
    const id = await newSequence({ active: true });
    const step = async (body: object) => (await as().post(`/api/v1/sequences/${id}/steps`, body)).body.id as number;
    const delay = await step({ action: 'delay', delay: 86_400 });
    const cond = await step({ action: 'condition', condition_setting: 'any_email_opened' });
    const yesEmail = await step({ subject: 'Yes' });
    const no = (await as().get(`/api/v1/sequences/${id}/steps`)).body.data.find((s: { branch?: boolean }) => s.branch === false).id as number;
    const noEmail = await step({ subject: 'No', parent_id: no });
    for (const email of ['w1@example.com', 'w2@example.com', 'w3@example.com']) await enrol(id, { email });
    // The runtime would have put them here: one waiting on the delay for a day, one on each branch.
    const later = new Date(Date.now() + 86_400_000);
    const park = (email: string, stepId: number) =>
      api.database
        .db('subscriber_sequences')
        .whereIn('subscriber_id', api.database.db('subscribers').where({ channel_id: channelId, email }).select('id'))
        .where({ sequence_id: id })
        .update({ current_step_id: stepId, next_trigger_at: later });
    await park('w1@example.com', delay);
    await park('w2@example.com', noEmail);
    await park('w3@example.com', yesEmail);
    const waiting = async (email: string) => {
      const list = (await as().get(`/api/v1/sequences/${id}/list_subscribers`)).body.subscriber_sequences as Array<{
        current_step_id: number;
        next_trigger_at: string;
        subscriber: { email: string };
      }>;
      return list.find((e) => e.subscriber.email === email)!;
    };

    expect((await as().delete(`/api/v1/sequences/${id}/steps/${delay}`)).status).toBe(200);
    const w1 = await waiting('w1@example.com');
    expect(w1.current_step_id).toBe(cond);
    expect(Date.parse(w1.next_trigger_at)).toBeLessThan(Date.now() + 1000);

    // A condition goes with its false side: those waiting there continue on the true line.
    await as().delete(`/api/v1/sequences/${id}/steps/${cond}`);
    expect((await waiting('w2@example.com')).current_step_id).toBe(yesEmail);
    expect((await waiting('w3@example.com')).current_step_id).toBe(yesEmail);
    // The last step: nothing replaces it, the path has ended.
    await as().delete(`/api/v1/sequences/${id}/steps/${yesEmail}`);
    expect((await waiting('w3@example.com')).current_step_id).toBeNull();
  });

  it('drops enrolments silently with their sequence', async () => {
    const id = await newSequence({ active: true });
    await enrol(id, { email: 'gone@example.com' });
    const before = await events(id);
    await as().delete(`/api/v1/sequences/${id}`);
    expect(await api.database.db('subscriber_sequences').where({ sequence_id: id })).toEqual([]);
    expect(await events(id)).toEqual(before);
  });
});
