import { startApi, type ApiHarness } from '../../test-support/harness';
import { client, setStatus } from '../../test-support/broadcasts';

const TEST = { subjects: ['Spring sale', 'Save 20% today'], sample_percent: 20, metric: 'human_opens', wait_minutes: 60 };

/** docs/subject-tests.md: ab_test through the API, and the statistics' ab_test before any decision. */
describe('ab_test on broadcasts', () => {
  let api: ApiHarness;
  let mine: ReturnType<typeof client>;

  beforeAll(async () => {
    api = await startApi();
    mine = client(api, (await api.fixtures.aTenant()).token);
  });
  afterAll(() => api.close());

  it('is null unless set; set flat or nested on create, changed and removed on update', async () => {
    const plain = await mine.post('/api/v1/broadcasts', { broadcast: { subject: 'Hi', body: 'Hello' } });
    expect((await mine.get(`/api/v1/broadcasts/${plain.body.id}`)).body.ab_test).toBeNull();

    const flat = await mine.post('/api/v1/broadcasts', { subject: 'Hi', body: 'Hello', ab_test: TEST });
    expect(flat.status).toBe(201);
    expect((await mine.get(`/api/v1/broadcasts/${flat.body.id}`)).body.ab_test).toEqual(TEST);

    const nested = await mine.patch(`/api/v1/broadcasts/${plain.body.id}`, {
      broadcast: { ab_test: { ...TEST, metric: 'human_clicks', subjects: ['A', ' B ', 'C'] } },
    });
    expect(nested.status).toBe(200);
    expect((await mine.get(`/api/v1/broadcasts/${plain.body.id}`)).body.ab_test).toEqual({ ...TEST, metric: 'human_clicks', subjects: ['A', 'B', 'C'] });
    expect((await mine.patch(`/api/v1/broadcasts/${plain.body.id}`, { ab_test: null })).status).toBe(200);
    expect((await mine.get(`/api/v1/broadcasts/${plain.body.id}`)).body.ab_test).toBeNull();
  });

  it.each([
    [{ ...TEST, subjects: ['Only one'] }, 'ab_test.subjects must contain at least 2 items'],
    [{ ...TEST, subjects: ['A', 'B', 'C', 'D', 'E'] }, 'ab_test.subjects must contain less than or equal to 4 items'],
    [{ ...TEST, subjects: ['A', 7] }, 'ab_test.subjects[1] must be a string'],
    [{ ...TEST, sample_percent: 4 }, 'ab_test.sample_percent must be greater than or equal to 5'],
    [{ ...TEST, sample_percent: 51 }, 'ab_test.sample_percent must be less than or equal to 50'],
    [{ ...TEST, sample_percent: '20' }, 'ab_test.sample_percent must be a number'],
    [{ ...TEST, metric: 'opens' }, 'ab_test.metric must be one of [human_opens, human_clicks]'],
    [{ ...TEST, wait_minutes: 0 }, 'ab_test.wait_minutes must be greater than or equal to 1'],
    [{ ...TEST, wait_minutes: 1441 }, 'ab_test.wait_minutes must be less than or equal to 1440'],
    [{ ...TEST, wait_minutes: 1.5 }, 'ab_test.wait_minutes must be an integer'],
    [{ subjects: ['A', 'B'], sample_percent: 10, metric: 'human_opens' }, 'ab_test.wait_minutes is required'],
    [{ ...TEST, subjects: ['A', '  '] }, "ab_test.subjects[1] can't be blank"],
    [{ ...TEST, subjects: ['A', '{{ oops'] }, /^ab_test\.subjects\[1\] is not valid Liquid: /],
    ['yes', 'ab_test must be of type object'],
  ])('refuses %j with a 422 naming the field, writing nothing', async (abTest, error) => {
    const before = await api.database.db('broadcasts').count({ n: '*' });
    const res = await mine.post('/api/v1/broadcasts', { broadcast: { subject: 'Hi', body: 'Hello', ab_test: abTest } });
    expect(res.status).toBe(422);
    expect(res.body.error).toEqual(typeof error === 'string' ? error : expect.stringMatching(error));
    expect(await api.database.db('broadcasts').count({ n: '*' })).toEqual(before);
  });

  it('does not go with sending in each subscriber’s time zone (422 on create, update and schedule)', async () => {
    const both = await mine.post('/api/v1/broadcasts', { subject: 'Hi', body: 'Hello', ab_test: TEST, send_in_subscriber_timezone: true });
    expect([both.status, both.body]).toEqual([422, { error: 'ab_test cannot be combined with send_in_subscriber_timezone' }]);
    const b = await mine.post('/api/v1/broadcasts', { subject: 'Hi', body: 'Hello', ab_test: TEST });
    const update = await mine.patch(`/api/v1/broadcasts/${b.body.id}`, { send_in_subscriber_timezone: true });
    expect([update.status, update.body]).toEqual([422, { error: 'ab_test cannot be combined with send_in_subscriber_timezone' }]);
    const schedule = await mine.post(`/api/v1/broadcasts/${b.body.id}/schedule_broadcast`, {
      scheduled_send_at: '2099-03-10T09:00:00',
      scheduled_timezone: 'UTC',
      send_in_subscriber_timezone: true,
    });
    expect([schedule.status, schedule.body]).toEqual([422, { error: 'ab_test cannot be combined with send_in_subscriber_timezone' }]);
    expect((await mine.get(`/api/v1/broadcasts/${b.body.id}`)).body).toMatchObject({ status: 'draft', send_in_subscriber_timezone: false, ab_test: TEST });
  });

  it('is editable only as other fields are (draft, future_scheduled)', async () => {
    const b = await mine.post('/api/v1/broadcasts', { subject: 'Hi', body: 'Hello', ab_test: TEST });
    await setStatus(api, b.body.id, 'sending');
    const res = await mine.patch(`/api/v1/broadcasts/${b.body.id}`, { ab_test: null });
    expect(res.status).toBe(422);
    expect((await mine.get(`/api/v1/broadcasts/${b.body.id}`)).body.ab_test).toEqual(TEST);
  });

  it('statistics: ab_test null without a test; each subject with zero figures and no winner before the decision', async () => {
    const plain = await mine.post('/api/v1/broadcasts', { subject: 'Hi', body: 'Hello' });
    expect((await mine.get(`/api/v1/broadcasts/${plain.body.id}/statistics`)).body.ab_test).toBeNull();
    const b = await mine.post('/api/v1/broadcasts', { subject: 'Hi', body: 'Hello', ab_test: TEST });
    const stats = await mine.get(`/api/v1/broadcasts/${b.body.id}/statistics`);
    expect(stats.status).toBe(200);
    expect(stats.body.ab_test).toEqual({
      metric: 'human_opens',
      variants: [
        { subject: 'Spring sale', sent: 0, human_opens: 0, human_clicks: 0 },
        { subject: 'Save 20% today', sent: 0, human_opens: 0, human_clicks: 0 },
      ],
      winner: null,
      decided_at: null,
    });
  });
});
