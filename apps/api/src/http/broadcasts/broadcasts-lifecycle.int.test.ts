import { startApi, type ApiHarness } from '../../test-support/harness';
import { anEmailServer, broadcastEvents, client, clockOverride, jobsFor, setStatus, SettableClock } from '../../test-support/broadcasts';

/**
 * Spec: Send now, Schedule, Cancel schedule and their error rows; docs/broadcasts-and-sending.md
 * (schedule statuses and messages, wall-clock reading, pause / resume / abort) and the event
 * table (broadcast.<status> through the outbox, nothing for a refused request).
 */
describe('broadcast lifecycle routes', () => {
  const NOW = new Date('2026-03-01T12:00:00.000Z');
  const clock = new SettableClock(NOW);
  let api: ApiHarness;
  let mine: ReturnType<typeof client>;
  let channelId: number;
  let serverId: number;

  beforeAll(async () => {
    api = await startApi({ overrides: [clockOverride(clock)] });
    const a = await api.fixtures.aTenant();
    channelId = a.channel.id;
    mine = client(api, a.token);
    serverId = (await anEmailServer(api, channelId)).id;
  });
  afterAll(() => api.close());
  afterEach(() => {
    clock.current = NOW;
  });

  const aDraft = (overrides = {}) => api.fixtures.aBroadcast(channelId, overrides, new Date('2026-02-01T00:00:00Z'));
  const statusOf = async (id: number) => (await api.database.db('broadcasts').where({ id }).first('status')).status as string;

  describe('send_broadcast', () => {
    it('moves a draft to scheduled: {id, message, status}, broadcast.scheduled and a send job in one go', async () => {
      const b = await aDraft({ segmentIds: [], tags: ['t1'] });
      const res = await mine.post(`/api/v1/broadcasts/${b.id}/send_broadcast`);
      expect(res.status).toBe(200);
      expect(res.body).toEqual({ id: b.id, message: 'Broadcast is queued for sending', status: 'scheduled' });
      expect(await statusOf(b.id)).toBe('scheduled');
      expect(await broadcastEvents(api, b.id)).toEqual([
        {
          type: 'broadcast.scheduled',
          data: {
            broadcast_id: b.id,
            name: 'Spring newsletter',
            subject: 'Hello {{ subscriber.first_name }}',
            status: 'scheduled',
            total_recipients: 0,
            broadcast_recipients_count: 0,
            percentage_complete: 0,
            sent_at: null,
            scheduled_send_at: null,
            created_at: '2026-02-01T00:00:00.000Z',
            updated_at: NOW.toISOString(),
            broadcast_channel_id: channelId,
            segment_ids: [],
            tags: ['t1'],
          },
        },
      ]);
      const jobs = await jobsFor(api, 'broadcasts.send', b.id);
      expect(jobs.map((j) => [j.data, j.state])).toEqual([[{ broadcastId: b.id }, 'created']]);
    });

    it.each(['future_scheduled', 'scheduled', 'queueing', 'sending', 'sent', 'partial_failure', 'aborted', 'paused'])(
      'refuses %s: 422 "Broadcast can only be sent from draft or failed status", no event, no job',
      async (status) => {
        const b = await aDraft();
        await setStatus(api, b.id, status);
        const res = await mine.post(`/api/v1/broadcasts/${b.id}/send_broadcast`);
        expect(res.status).toBe(422);
        expect(res.body).toEqual({ error: 'Broadcast can only be sent from draft or failed status' });
        expect(await statusOf(b.id)).toBe(status);
        expect(await broadcastEvents(api, b.id)).toEqual([]);
        expect(await jobsFor(api, 'broadcasts.send', b.id)).toEqual([]);
      },
    );

    it.each([
      ['no body', { body: null }],
      ['a blank body', { body: '  ' }],
      ['a blank subject', { subject: ' ' }],
    ])('refuses a broadcast with %s: 422 "Broadcast is not ready to send"', async (_label, overrides) => {
      const b = await aDraft(overrides);
      const res = await mine.post(`/api/v1/broadcasts/${b.id}/send_broadcast`);
      expect(res.status).toBe(422);
      expect(res.body).toEqual({ error: 'Broadcast is not ready to send' });
      expect(await statusOf(b.id)).toBe('draft');
      expect(await broadcastEvents(api, b.id)).toEqual([]);
    });

    it('counts an HTML body as a body', async () => {
      const b = await aDraft({ body: null, htmlBody: '<p>Hi</p>' });
      expect((await mine.post(`/api/v1/broadcasts/${b.id}/send_broadcast`)).body.status).toBe('scheduled');
    });

    it('refuses a channel without an email server, checked before the content (spec order)', async () => {
      const other = await api.fixtures.aTenant();
      const theirs = client(api, other.token);
      const b = await api.fixtures.aBroadcast(other.channel.id, { body: null });
      const res = await theirs.post(`/api/v1/broadcasts/${b.id}/send_broadcast`);
      expect(res.status).toBe(422);
      expect(res.body).toEqual({ error: 'SMTP settings are not configured, please check your settings' });
      expect(await broadcastEvents(api, b.id)).toEqual([]);
    });

    it('refuses when none of the named email servers exists any more', async () => {
      const gone = await anEmailServer(api, channelId, { host: 'gone.example.test' });
      const b = await aDraft({ emailServerIds: [gone.id] });
      await api.database.db('email_servers').where({ id: gone.id }).delete();
      const res = await mine.post(`/api/v1/broadcasts/${b.id}/send_broadcast`);
      expect(res.status).toBe(422);
      expect(res.body).toEqual({ error: 'SMTP settings are not configured, please check your settings' });
      const anyServer = await aDraft({ emailServerIds: [gone.id], useAnyEmailServer: true });
      expect((await mine.post(`/api/v1/broadcasts/${anyServer.id}/send_broadcast`)).status).toBe(200);
      const named = await aDraft({ emailServerIds: [serverId] });
      expect((await mine.post(`/api/v1/broadcasts/${named.id}/send_broadcast`)).status).toBe(200);
    });

    it('lets exactly one of two concurrent calls win', async () => {
      for (let round = 0; round < 5; round++) {
        const b = await aDraft();
        const answers = await Promise.all([1, 2, 3].map(() => mine.post(`/api/v1/broadcasts/${b.id}/send_broadcast`)));
        expect(answers.map((r) => r.status).sort()).toEqual([200, 422, 422]);
        expect(answers.filter((r) => r.status === 422).map((r) => r.body.error)).toEqual([
          'Broadcast can only be sent from draft or failed status',
          'Broadcast can only be sent from draft or failed status',
        ]);
        expect((await broadcastEvents(api, b.id)).map((e) => e.type)).toEqual(['broadcast.scheduled']);
        expect(await jobsFor(api, 'broadcasts.send', b.id)).toHaveLength(1);
      }
    });

    it('sends a failed broadcast again to those not yet reached: failed recipients back to pending', async () => {
      const b = await aDraft();
      const subscribers = await api.database
        .db('subscribers')
        .insert(['a', 'b', 'c'].map((n) => ({ channel_id: channelId, email: `${n}-${b.id}@example.test` })))
        .returning('id');
      const [sent, failed, bounced] = subscribers.map((s: { id: number }) => Number(s.id));
      await api.database.db('broadcast_recipients').insert([
        { broadcast_id: b.id, subscriber_id: sent, status: 'sent', message_id: '<1@x>', attempts: 1 },
        { broadcast_id: b.id, subscriber_id: failed, status: 'failed', message_id: '<2@x>', attempts: 3, error: '554', failed_at: NOW },
        { broadcast_id: b.id, subscriber_id: bounced, status: 'bounced', message_id: '<3@x>', attempts: 1 },
      ]);
      await setStatus(api, b.id, 'failed', { total_recipients: 3, broadcast_recipients_count: 3, sent_at: NOW });

      const res = await mine.post(`/api/v1/broadcasts/${b.id}/send_broadcast`);
      expect(res.body).toEqual({ id: b.id, message: 'Broadcast is queued for sending', status: 'scheduled' });
      const rows = await api.database
        .db('broadcast_recipients')
        .where({ broadcast_id: b.id })
        .orderBy('subscriber_id')
        .select('status', 'attempts', 'error', 'failed_at', 'message_id');
      expect(rows).toEqual([
        { status: 'sent', attempts: 1, error: null, failed_at: null, message_id: '<1@x>' },
        { status: 'pending', attempts: 0, error: null, failed_at: null, message_id: '<2@x>' },
        { status: 'bounced', attempts: 1, error: null, failed_at: null, message_id: '<3@x>' },
      ]);
      const got = (await mine.get(`/api/v1/broadcasts/${b.id}`)).body;
      expect(got).toMatchObject({ status: 'scheduled', total_recipients: 3, broadcast_recipients_count: 2, sent_at: null });
    });

    it("answers another channel's broadcast and an unknown id with 404", async () => {
      const other = await api.fixtures.aTenant();
      const b = await api.fixtures.aBroadcast(other.channel.id);
      for (const id of [b.id, 987654321]) {
        const res = await mine.post(`/api/v1/broadcasts/${id}/send_broadcast`);
        expect(res.status).toBe(404);
        expect(res.body).toEqual({ error: 'Broadcast not found' });
      }
      expect(await statusOf(b.id)).toBe('draft');
    });
  });

  describe('schedule_broadcast', () => {
    it('reads a time without offset as wall-clock time in the timezone (nested form)', async () => {
      const b = await aDraft();
      const res = await mine.post(`/api/v1/broadcasts/${b.id}/schedule_broadcast`, {
        broadcast: { scheduled_send_at: '2026-03-02T09:30:00', scheduled_timezone: 'America/New_York' },
      });
      expect(res.status).toBe(200);
      expect(res.body).toEqual({
        id: b.id,
        message: 'Broadcast scheduled successfully',
        status: 'future_scheduled',
        scheduled_send_at: '2026-03-02T14:30:00.000Z',
        scheduled_timezone: 'America/New_York',
      });
      const got = (await mine.get(`/api/v1/broadcasts/${b.id}`)).body;
      expect(got).toMatchObject({
        status: 'future_scheduled',
        scheduled_send_at: '2026-03-02T14:30:00.000Z',
        scheduled_timezone: 'America/New_York',
      });
      const events = await broadcastEvents(api, b.id);
      expect(events.map((e) => [e.type, e.data.status, e.data.scheduled_send_at])).toEqual([
        ['broadcast.scheduled', 'future_scheduled', '2026-03-02T14:30:00.000Z'],
      ]);
      const jobs = await jobsFor(api, 'broadcasts.due', b.id);
      expect(jobs.map((j) => [j.data, j.start_after.toISOString()])).toEqual([[{ broadcastId: b.id, version: 1 }, '2026-03-02T14:30:00.000Z']]);
    });

    it('takes an offset as an absolute instant (flat form), and reschedules from future_scheduled', async () => {
      const b = await aDraft();
      const first = await mine.post(`/api/v1/broadcasts/${b.id}/schedule_broadcast`, {
        scheduled_send_at: '2026-03-05T10:00:00+05:30',
        scheduled_timezone: 'Asia/Tokyo',
      });
      expect(first.body).toMatchObject({ scheduled_send_at: '2026-03-05T04:30:00.000Z', scheduled_timezone: 'Asia/Tokyo' });
      const again = await mine.post(`/api/v1/broadcasts/${b.id}/schedule_broadcast`, {
        broadcast: { scheduled_send_at: '2026-03-06T00:00:00Z' },
      });
      expect(again.status).toBe(200);
      expect(again.body).toMatchObject({ status: 'future_scheduled', scheduled_send_at: '2026-03-06T00:00:00.000Z', scheduled_timezone: 'Asia/Tokyo' });
      expect((await jobsFor(api, 'broadcasts.due', b.id)).map((j) => j.data)).toEqual([
        { broadcastId: b.id, version: 1 },
        { broadcastId: b.id, version: 2 },
      ]);
      expect((await broadcastEvents(api, b.id)).map((e) => e.type)).toEqual(['broadcast.scheduled', 'broadcast.scheduled']);
    });

    it('confirms the stored schedule when called without parameters', async () => {
      const created = await mine.post('/api/v1/broadcasts', {
        broadcast: { subject: 'S', body: 'B', scheduled_send_at: '2026-03-10T08:00:00', scheduled_timezone: 'Europe/London' },
      });
      const res = await mine.post(`/api/v1/broadcasts/${created.body.id}/schedule_broadcast`);
      expect(res.status).toBe(200);
      expect(res.body).toEqual({
        id: created.body.id,
        message: 'Broadcast scheduled successfully',
        status: 'future_scheduled',
        scheduled_send_at: '2026-03-10T08:00:00.000Z',
        scheduled_timezone: 'Europe/London',
      });
      const empty = await mine.post(`/api/v1/broadcasts/${created.body.id}/schedule_broadcast`, { broadcast: {} });
      expect(empty.status).toBe(200);
    });

    it.each([
      ['no schedule stored', {}, {}, 'Scheduled timezone is required'],
      ['a timezone but no time', { scheduledTimezone: 'UTC' }, {}, 'Scheduled send time is required'],
      ['an unknown timezone', {}, { scheduled_send_at: '2026-03-02T09:00:00', scheduled_timezone: 'Europe/Atlantis' }, 'Scheduled timezone is invalid'],
      ['an offset instead of a name', {}, { scheduled_send_at: '2026-03-02T09:00:00', scheduled_timezone: '+01:00' }, 'Scheduled timezone is invalid'],
      ['a time in the past', {}, { scheduled_send_at: '2026-03-01T11:59:59Z', scheduled_timezone: 'UTC' }, 'Scheduled send time must be in the future'],
      ['the current time', {}, { scheduled_send_at: '2026-03-01T12:00:00Z', scheduled_timezone: 'UTC' }, 'Scheduled send time must be in the future'],
      // 12:30 in Berlin (UTC+1 in March) is 11:30Z, before now.
      [
        'a wall-clock time that is past in its zone',
        {},
        { scheduled_send_at: '2026-03-01T12:30:00', scheduled_timezone: 'Europe/Berlin' },
        'Scheduled send time must be in the future',
      ],
      ['an unreadable time', {}, { scheduled_send_at: 'tomorrow', scheduled_timezone: 'UTC' }, 'Scheduled send time is invalid'],
      ['a number for the time', {}, { scheduled_send_at: 1767261600, scheduled_timezone: 'UTC' }, 'scheduled_send_at must be a string'],
    ])('refuses %s with 422, no event, no job', async (_label, stored, body, message) => {
      const b = await aDraft(stored);
      const res = await mine.post(`/api/v1/broadcasts/${b.id}/schedule_broadcast`, { broadcast: body });
      expect(res.status).toBe(422);
      expect(res.body).toEqual({ error: message });
      expect(await statusOf(b.id)).toBe('draft');
      expect(await broadcastEvents(api, b.id)).toEqual([]);
      expect(await jobsFor(api, 'broadcasts.due', b.id)).toEqual([]);
    });

    it.each(['scheduled', 'queueing', 'sending', 'sent', 'failed', 'partial_failure', 'aborted', 'paused'])(
      'refuses %s: 422 "Broadcast cannot be scheduled in current status"',
      async (status) => {
        const b = await aDraft();
        await setStatus(api, b.id, status);
        const res = await mine.post(`/api/v1/broadcasts/${b.id}/schedule_broadcast`, {
          broadcast: { scheduled_send_at: '2026-04-01T00:00:00Z', scheduled_timezone: 'UTC' },
        });
        expect(res.status).toBe(422);
        expect(res.body).toEqual({ error: 'Broadcast cannot be scheduled in current status' });
        expect(await broadcastEvents(api, b.id)).toEqual([]);
      },
    );
  });

  describe('cancel_schedule', () => {
    it('moves future_scheduled back to draft, clearing the schedule; no event', async () => {
      const b = await aDraft();
      await mine.post(`/api/v1/broadcasts/${b.id}/schedule_broadcast`, {
        broadcast: { scheduled_send_at: '2026-03-03T00:00:00Z', scheduled_timezone: 'UTC' },
      });
      const res = await mine.post(`/api/v1/broadcasts/${b.id}/cancel_schedule`);
      expect(res.status).toBe(200);
      expect(res.body).toEqual({ id: b.id, message: 'Broadcast schedule cancelled', status: 'draft' });
      expect((await mine.get(`/api/v1/broadcasts/${b.id}`)).body).toMatchObject({
        status: 'draft',
        scheduled_send_at: null,
        scheduled_timezone: null,
      });
      expect((await broadcastEvents(api, b.id)).map((e) => e.type)).toEqual(['broadcast.scheduled']);
      // The due job now carries a stale version (1; the broadcast is at 2).
      expect((await api.database.db('broadcasts').where({ id: b.id }).first('version')).version).toBe(2);
    });

    it.each(['draft', 'scheduled', 'sending', 'sent', 'aborted'])('refuses %s: 422 "Broadcast is not scheduled"', async (status) => {
      const b = await aDraft();
      await setStatus(api, b.id, status);
      const res = await mine.post(`/api/v1/broadcasts/${b.id}/cancel_schedule`);
      expect(res.status).toBe(422);
      expect(res.body).toEqual({ error: 'Broadcast is not scheduled' });
      expect(await statusOf(b.id)).toBe(status);
    });
  });

  describe('pause, resume and abort (docs/broadcasts-and-sending.md: beyond the spec)', () => {
    it('pauses a sending broadcast and resumes it to sending, with events and a send job', async () => {
      const b = await aDraft();
      await setStatus(api, b.id, 'sending');
      const paused = await mine.post(`/api/v1/broadcasts/${b.id}/pause_broadcast`);
      expect(paused.status).toBe(200);
      expect(paused.body).toEqual({ id: b.id, message: 'Broadcast paused', status: 'paused' });
      const resumed = await mine.post(`/api/v1/broadcasts/${b.id}/resume_broadcast`);
      expect(resumed.body).toEqual({ id: b.id, message: 'Broadcast resumed', status: 'sending' });
      const events = await broadcastEvents(api, b.id);
      expect(events.map((e) => [e.type, e.data.status])).toEqual([
        ['broadcast.paused', 'paused'],
        ['broadcast.sending', 'sending'],
      ]);
      expect((await jobsFor(api, 'broadcasts.send', b.id)).map((j) => j.data)).toEqual([{ broadcastId: b.id }]);
    });

    it.each(['scheduled', 'queueing'])('resumes a broadcast paused in %s to that stage', async (stage) => {
      const b = await aDraft();
      await setStatus(api, b.id, stage);
      await mine.post(`/api/v1/broadcasts/${b.id}/pause_broadcast`);
      const resumed = await mine.post(`/api/v1/broadcasts/${b.id}/resume_broadcast`);
      expect(resumed.body.status).toBe(stage);
      expect((await broadcastEvents(api, b.id)).map((e) => e.type)).toEqual(['broadcast.paused', `broadcast.${stage}`]);
      expect((await api.database.db('broadcasts').where({ id: b.id }).first('paused_from')).paused_from).toBeNull();
    });

    it.each(['future_scheduled', 'scheduled', 'queueing', 'sending', 'paused'])('aborts from %s', async (status) => {
      const b = await aDraft();
      await setStatus(api, b.id, status);
      const res = await mine.post(`/api/v1/broadcasts/${b.id}/abort_broadcast`);
      expect(res.status).toBe(200);
      expect(res.body).toEqual({ id: b.id, message: 'Broadcast aborted', status: 'aborted' });
      expect((await broadcastEvents(api, b.id)).map((e) => [e.type, e.data.status])).toEqual([['broadcast.aborted', 'aborted']]);
    });

    it.each([
      ['pause_broadcast', ['draft', 'future_scheduled', 'paused', 'sent', 'failed', 'aborted'], 'Broadcast cannot be paused in current status'],
      ['resume_broadcast', ['draft', 'scheduled', 'sending', 'sent', 'aborted'], 'Broadcast cannot be resumed in current status'],
      ['abort_broadcast', ['draft', 'sent', 'failed', 'partial_failure', 'aborted'], 'Broadcast cannot be aborted in current status'],
    ])('%s refuses the other statuses with 422', async (route, statuses, message) => {
      for (const status of statuses) {
        const b = await aDraft();
        await setStatus(api, b.id, status);
        const res = await mine.post(`/api/v1/broadcasts/${b.id}/${route}`);
        expect([status, res.status, res.body]).toEqual([status, 422, { error: message }]);
        expect(await statusOf(b.id)).toBe(status);
        expect(await broadcastEvents(api, b.id)).toEqual([]);
      }
    });
  });

  it.each(['send_broadcast', 'schedule_broadcast', 'cancel_schedule', 'pause_broadcast', 'resume_broadcast', 'abort_broadcast'])(
    '%s needs broadcasts_write (401) and hides other channels (404)',
    async (route) => {
      const b = await aDraft();
      const readOnly = client(api, await api.fixtures.aToken(channelId, ['broadcasts_read']));
      const denied = await readOnly.post(`/api/v1/broadcasts/${b.id}/${route}`);
      expect(denied.status).toBe(401);
      expect(denied.body).toEqual({ error: 'Unauthorized' });
      const other = await api.fixtures.aTenant();
      const hidden = await client(api, other.token).post(`/api/v1/broadcasts/${b.id}/${route}`);
      expect(hidden.status).toBe(404);
      expect(hidden.body).toEqual({ error: 'Broadcast not found' });
      expect(await statusOf(b.id)).toBe('draft');
    },
  );
});
