import { startApi, type ApiHarness } from '../../test-support/harness';
import { client, clockOverride, jobsFor, SettableClock } from '../../test-support/broadcasts';

/** docs/broadcasts-and-sending.md, "Send in each subscriber's time zone": the flag through the API. */
describe('send_in_subscriber_timezone', () => {
  const clock = new SettableClock(new Date('2026-03-01T12:00:00.000Z'));
  let api: ApiHarness;
  let mine: ReturnType<typeof client>;

  beforeAll(async () => {
    api = await startApi({ overrides: [clockOverride(clock)] });
    mine = client(api, (await api.fixtures.aTenant()).token);
  });
  afterAll(() => api.close());

  it('is false unless set, and is set on create, update and schedule_broadcast', async () => {
    const plain = await mine.post('/api/v1/broadcasts', { broadcast: { subject: 'Hi', body: 'Hello' } });
    expect((await mine.get(`/api/v1/broadcasts/${plain.body.id}`)).body.send_in_subscriber_timezone).toBe(false);

    const created = await mine.post('/api/v1/broadcasts', { subject: 'Hi', body: 'Hello', send_in_subscriber_timezone: true });
    expect(created.status).toBe(201);
    expect((await mine.get(`/api/v1/broadcasts/${created.body.id}`)).body.send_in_subscriber_timezone).toBe(true);
    expect((await mine.patch(`/api/v1/broadcasts/${created.body.id}`, { broadcast: { send_in_subscriber_timezone: false } })).status).toBe(200);
    expect((await mine.get(`/api/v1/broadcasts/${created.body.id}`)).body.send_in_subscriber_timezone).toBe(false);

    const res = await mine.post(`/api/v1/broadcasts/${plain.body.id}/schedule_broadcast`, {
      broadcast: { scheduled_send_at: '2026-03-10T09:00:00', scheduled_timezone: 'Europe/Berlin', send_in_subscriber_timezone: true },
    });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ status: 'future_scheduled', scheduled_send_at: '2026-03-10T08:00:00.000Z' });
    expect((await mine.get(`/api/v1/broadcasts/${plain.body.id}`)).body.send_in_subscriber_timezone).toBe(true);
    // The due job waits for the window's start: 09:00 at UTC+14, 19:00Z the day before.
    const jobs = await jobsFor(api, 'broadcasts.due', plain.body.id);
    expect(jobs.map((j) => j.start_after.toISOString())).toEqual(['2026-03-09T19:00:00.000Z']);
  });

  it('a reschedule without the flag keeps it; an edit of a scheduled broadcast re-times its due job by its window', async () => {
    const b = await mine.post('/api/v1/broadcasts', { subject: 'Hi', body: 'Hello', send_in_subscriber_timezone: true });
    await mine.post(`/api/v1/broadcasts/${b.body.id}/schedule_broadcast`, { scheduled_send_at: '2026-03-10T09:00:00', scheduled_timezone: 'UTC' });
    expect((await mine.get(`/api/v1/broadcasts/${b.body.id}`)).body.send_in_subscriber_timezone).toBe(true);
    expect((await mine.patch(`/api/v1/broadcasts/${b.body.id}`, { send_in_subscriber_timezone: false })).status).toBe(200);
    const jobs = await jobsFor(api, 'broadcasts.due', b.body.id);
    expect(jobs.map((j) => j.start_after.toISOString())).toEqual(['2026-03-09T19:00:00.000Z', '2026-03-10T09:00:00.000Z']);
  });

  it('must be a boolean (422, nothing written)', async () => {
    const bad = await mine.post('/api/v1/broadcasts', { subject: 'Hi', body: 'Hello', send_in_subscriber_timezone: 'yes' });
    expect([bad.status, bad.body]).toEqual([422, { error: 'send_in_subscriber_timezone must be a boolean' }]);
    const b = await mine.post('/api/v1/broadcasts', { subject: 'Hi', body: 'Hello' });
    const schedule = await mine.post(`/api/v1/broadcasts/${b.body.id}/schedule_broadcast`, {
      scheduled_send_at: '2026-03-10T09:00:00',
      scheduled_timezone: 'UTC',
      send_in_subscriber_timezone: 1,
    });
    expect([schedule.status, schedule.body]).toEqual([422, { error: 'send_in_subscriber_timezone must be a boolean' }]);
    expect((await mine.get(`/api/v1/broadcasts/${b.body.id}`)).body).toMatchObject({ status: 'draft', send_in_subscriber_timezone: false });
  });
});
