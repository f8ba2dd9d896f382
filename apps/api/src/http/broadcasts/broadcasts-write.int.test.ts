import { startApi, type ApiHarness } from '../../test-support/harness';
import { aSegment, anEmailServer, broadcastEvents, client, clockOverride, jobsFor, setStatus, SettableClock } from '../../test-support/broadcasts';

/** Spec: Broadcasts Create / Update / Delete, their error rows, docs/api-decisions.md body forms. */
describe('broadcast create, update and delete', () => {
  const clock = new SettableClock(new Date('2026-06-01T12:00:00.000Z'));
  let api: ApiHarness;
  let mine: ReturnType<typeof client>;
  let channelId: number;
  let theirs: ReturnType<typeof client>;
  let theirChannelId: number;
  let serverId: number;
  let segmentId: number;
  let theirServerId: number;
  let theirSegmentId: number;

  beforeAll(async () => {
    api = await startApi({ overrides: [clockOverride(clock)] });
    const a = await api.fixtures.aTenant();
    const b = await api.fixtures.aTenant();
    channelId = a.channel.id;
    theirChannelId = b.channel.id;
    mine = client(api, a.token);
    theirs = client(api, b.token);
    serverId = (await anEmailServer(api, channelId)).id;
    theirServerId = (await anEmailServer(api, theirChannelId)).id;
    segmentId = await aSegment(api, channelId);
    theirSegmentId = await aSegment(api, theirChannelId);
  });
  afterAll(() => api.close());

  const count = async () => Number((await api.database.db('broadcasts').count({ n: '*' }).first())?.n);

  describe('create', () => {
    it('creates a draft nested under broadcast: 201 {id}, every field stored', async () => {
      const res = await mine.post('/api/v1/broadcasts', {
        broadcast: {
          name: 'June news',
          subject: 'Hi {{ subscriber.first_name }}',
          preheader: 'Read me',
          body: 'Hello {{ subscriber.email }}',
          html_body: '<p>{{ broadcast.name }}</p>',
          include_unsubscribe_link: false,
          reply_to: 'replies@example.test',
          track_opens: false,
          track_clicks: true,
          segment_ids: [segmentId],
          email_server_ids: [serverId],
          use_any_email_server: true,
          email_headers: [{ key: 'X-Campaign', value: 'june' }],
          tags: ['news'],
          scheduled_send_at: '2026-07-01T09:00:00',
          scheduled_timezone: 'Europe/Berlin',
        },
      });
      expect(res.status).toBe(201);
      expect(Object.keys(res.body)).toEqual(['id']);
      const got = await mine.get(`/api/v1/broadcasts/${res.body.id}`);
      expect(got.body).toEqual({
        id: res.body.id,
        name: 'June news',
        ab_test: null,
        subject: 'Hi {{ subscriber.first_name }}',
        preheader: 'Read me',
        body: 'Hello {{ subscriber.email }}',
        html_body: '<p>{{ broadcast.name }}</p>',
        include_unsubscribe_link: false,
        reply_to: 'replies@example.test',
        status: 'draft',
        track_opens: false,
        track_clicks: true,
        total_recipients: 0,
        broadcast_recipients_count: 0,
        percentage_complete: 0,
        // Wall-clock 09:00 in Berlin in summer (CEST, UTC+2).
        scheduled_send_at: '2026-07-01T07:00:00.000Z',
        scheduled_timezone: 'Europe/Berlin',
        sent_at: null,
        created_at: '2026-06-01T12:00:00.000Z',
        updated_at: '2026-06-01T12:00:00.000Z',
        tags: ['news'],
        segment_ids: [segmentId],
        topic_id: null,
        excluded_segment_ids: [],
        template_id: null,
        email_server_ids: [serverId],
        use_any_email_server: true,
        email_headers: [{ key: 'X-Campaign', value: 'june' }],
        archive: false,
        send_in_subscriber_timezone: false,
        pause_reason: null,
      });
      // A draft has no event of its own.
      expect(await broadcastEvents(api, res.body.id)).toEqual([]);
    });

    it('accepts the flat form, and takes tracking defaults from the channel', async () => {
      await api.database.db('channels').where({ id: channelId }).update({ track_opens: false, track_clicks: false });
      try {
        const res = await mine.post('/api/v1/broadcasts', { subject: 'Flat', body: 'B' });
        expect(res.status).toBe(201);
        const got = await mine.get(`/api/v1/broadcasts/${res.body.id}`);
        expect(got.body).toMatchObject({
          subject: 'Flat',
          body: 'B',
          name: null,
          html_body: null,
          track_opens: false,
          track_clicks: false,
          include_unsubscribe_link: true,
          use_any_email_server: false,
          email_headers: [],
          segment_ids: [],
          scheduled_send_at: null,
        });
      } finally {
        await api.database.db('channels').where({ id: channelId }).update({ track_opens: true, track_clicks: true });
      }
      const defaults = await mine.post('/api/v1/broadcasts', { broadcast: { subject: 'S' } });
      expect((await mine.get(`/api/v1/broadcasts/${defaults.body.id}`)).body).toMatchObject({ track_opens: true, track_clicks: true });
    });

    it.each([
      ['missing', { body: 'B' }],
      ['empty', { subject: '' }],
      ['blank', { subject: '  \n ' }],
      ['null', { subject: null }],
    ])('answers a %s subject with 422 "Subject can\'t be blank" and writes nothing', async (_label, broadcast) => {
      const before = await count();
      const res = await mine.post('/api/v1/broadcasts', { broadcast });
      expect(res.status).toBe(422);
      expect(res.body).toEqual({ error: "Subject can't be blank" });
      expect(await count()).toBe(before);
    });

    it.each([
      ['subject', 'Hi {{ subscriber.first_name', 'Subject is not valid Liquid: '],
      ['body', '{% if x %}never closed', 'Body is not valid Liquid: '],
      ['html_body', '<p>{% for %}</p>', 'Html body is not valid Liquid: '],
    ])('refuses invalid Liquid in %s with 422', async (field, source, prefix) => {
      const before = await count();
      const res = await mine.post('/api/v1/broadcasts', { broadcast: { subject: 'S', [field]: source } });
      expect(res.status).toBe(422);
      expect(res.body.error).toMatch(new RegExp(`^${prefix}\\S`));
      expect(await count()).toBe(before);
    });

    it('names the parser problem: an unknown filter or tag', async () => {
      const filter = await mine.post('/api/v1/broadcasts', { broadcast: { subject: 'Hi {{ subscriber.first_name | shout }}' } });
      expect(filter.status).toBe(422);
      expect(filter.body).toEqual({ error: 'Subject is not valid Liquid: undefined filter: shout, line:1, col:4' });
      const tag = await mine.post('/api/v1/broadcasts', { broadcast: { subject: 'S', body: '{% bogus %}' } });
      expect(tag.body).toEqual({ error: 'Body is not valid Liquid: tag "bogus" not found, line:1, col:1' });
    });

    it.each([
      [{ subject: 42 }, 'subject must be a string'],
      [{ subject: 'S', track_opens: 'yes' }, 'track_opens must be a boolean'],
      [{ subject: 'S', include_unsubscribe_link: 1 }, 'include_unsubscribe_link must be a boolean'],
      [{ subject: 'S', segment_ids: ['1'] }, 'segment_ids[0] must be a number'],
      [{ subject: 'S', segment_ids: [1.5] }, 'segment_ids[0] must be an integer'],
      [{ subject: 'S', email_server_ids: 3 }, 'email_server_ids must be an array'],
      [{ subject: 'S', email_headers: [{ key: 'X Bad', value: 'v' }] }, 'email_headers[0].key must be a header name (printable ASCII, no spaces or colons)'],
      [{ subject: 'S', email_headers: [{ key: 'X-A:', value: 'v' }] }, 'email_headers[0].key must be a header name (printable ASCII, no spaces or colons)'],
      [{ subject: 'S', email_headers: [{ key: 'X-A', value: 'a\r\nBcc: x@y.test' }] }, 'email_headers[0].value must not contain line breaks'],
      [{ subject: 'S', email_headers: [{ key: 'X-A' }] }, 'email_headers[0].value is required'],
      [{ subject: 'S', email_headers: [{ key: 'From', value: 'a@b.test' }] }, 'email_headers[0].key From is set by Mailcast and cannot be overridden'],
      [
        {
          subject: 'S',
          email_headers: [
            { key: 'X-Ok', value: 'v' },
            { key: 'Return-Path', value: 'v' },
          ],
        },
        'email_headers[1].key Return-Path is set by Mailcast and cannot be overridden',
      ],
      [
        {
          subject: 'S',
          email_headers: [
            { key: 'X-Ok', value: 'v' },
            { key: 'Resent-From', value: 'v' },
          ],
        },
        'email_headers[1].key Resent-From is set by Mailcast and cannot be overridden',
      ],
      [
        {
          subject: 'S',
          email_headers: [
            { key: 'X-Ok', value: 'v' },
            { key: 'Resent-Message-ID', value: 'v' },
          ],
        },
        'email_headers[1].key Resent-Message-ID is set by Mailcast and cannot be overridden',
      ],
      [
        {
          subject: 'S',
          email_headers: [
            { key: 'X-Ok', value: 'v' },
            { key: 'DKIM-Signature', value: 'v' },
          ],
        },
        'email_headers[1].key DKIM-Signature is set by Mailcast and cannot be overridden',
      ],
      [
        {
          subject: 'S',
          email_headers: [
            { key: 'X-Ok', value: 'v' },
            { key: 'dkim-foo', value: 'v' },
          ],
        },
        'email_headers[1].key dkim-foo is set by Mailcast and cannot be overridden',
      ],
      [
        {
          subject: 'S',
          email_headers: [
            { key: 'X-Ok', value: 'v' },
            { key: 'Content-Disposition', value: 'v' },
          ],
        },
        'email_headers[1].key Content-Disposition is set by Mailcast and cannot be overridden',
      ],
      [
        {
          subject: 'S',
          email_headers: [
            { key: 'X-Ok', value: 'v' },
            { key: 'Content-Type', value: 'v' },
          ],
        },
        'email_headers[1].key Content-Type is set by Mailcast and cannot be overridden',
      ],
      [
        {
          subject: 'S',
          email_headers: [
            { key: 'X-Ok', value: 'v' },
            { key: 'MIME-Version', value: 'v' },
          ],
        },
        'email_headers[1].key MIME-Version is set by Mailcast and cannot be overridden',
      ],
      [
        {
          subject: 'S',
          email_headers: [
            { key: 'X-Ok', value: 'v' },
            { key: 'Received', value: 'v' },
          ],
        },
        'email_headers[1].key Received is set by Mailcast and cannot be overridden',
      ],
      [
        {
          subject: 'S',
          email_headers: [
            { key: 'X-Ok', value: 'v' },
            { key: 'Sender', value: 'v' },
          ],
        },
        'email_headers[1].key Sender is set by Mailcast and cannot be overridden',
      ],
      [
        {
          subject: 'S',
          email_headers: [
            { key: 'X-Ok', value: 'v' },
            { key: 'ARC-Seal', value: 'v' },
          ],
        },
        'email_headers[1].key ARC-Seal is set by Mailcast and cannot be overridden',
      ],
      // The Postmark receiver matches bounces by it (docs/bounces.md): another channel's message id here would make this channel's bounce theirs.
      [
        { subject: 'S', email_headers: [{ key: 'X-PM-Metadata-mailcast-message-id', value: '<1.2.x@y>' }] },
        'email_headers[0].key X-PM-Metadata-mailcast-message-id is set by Mailcast and cannot be overridden',
      ],
      [
        { subject: 'S', email_headers: [{ key: 'x-pm-metadata-MAILCAST-Message-Id', value: '<1.2.x@y>' }] },
        'email_headers[0].key x-pm-metadata-MAILCAST-Message-Id is set by Mailcast and cannot be overridden',
      ],
      [{ subject: 'S', html_body: 'x'.repeat(524_289) }, 'html_body length must be less than or equal to 524288 characters long'],
      [{ subject: 'S', body: 'x'.repeat(524_289) }, 'body length must be less than or equal to 524288 characters long'],
      [{ subject: 'S', reply_to: 'not an address' }, 'Reply to is not a valid email address'],
      [{ subject: 'S', scheduled_timezone: 'Mars/Olympus' }, 'Scheduled timezone is invalid'],
      [{ subject: 'S', scheduled_send_at: 'next tuesday' }, 'Scheduled send time is invalid'],
      [{ subject: 42, track_clicks: 'no' }, 'subject must be a string, track_clicks must be a boolean'],
    ])('refuses %j with 422 %j', async (broadcast, message) => {
      const before = await count();
      const res = await mine.post('/api/v1/broadcasts', { broadcast });
      expect(res.status).toBe(422);
      expect(res.body).toEqual({ error: message });
      expect(await count()).toBe(before);
    });

    it('refuses segments and email servers of another channel (422), as if they did not exist', async () => {
      const res = await mine.post('/api/v1/broadcasts', {
        broadcast: { subject: 'S', segment_ids: [segmentId, theirSegmentId], email_server_ids: [theirServerId, 999999] },
      });
      expect(res.status).toBe(422);
      expect(res.body).toEqual({
        error: `Segment ids include unknown segments: ${theirSegmentId}, Email server ids include unknown email servers: ${theirServerId}, 999999`,
      });
    });

    it('refuses a body that is not an object', async () => {
      const res = await mine.post('/api/v1/broadcasts', ['subject']);
      expect(res.status).toBe(422);
      expect(res.body).toEqual({ error: 'Request body must be a JSON object' });
      const nested = await mine.post('/api/v1/broadcasts', { broadcast: 'S' });
      expect(nested.body).toEqual({ error: 'broadcast must be an object' });
    });

    it('needs broadcasts_write (401 otherwise)', async () => {
      const readOnly = client(api, await api.fixtures.aToken(channelId, ['broadcasts_read']));
      const before = await count();
      const res = await readOnly.post('/api/v1/broadcasts', { broadcast: { subject: 'S' } });
      expect(res.status).toBe(401);
      expect(res.body).toEqual({ error: 'Unauthorized' });
      expect(await count()).toBe(before);
      const writeOnly = client(api, await api.fixtures.aToken(channelId, ['broadcasts_write']));
      expect((await writeOnly.post('/api/v1/broadcasts', { broadcast: { subject: 'S' } })).status).toBe(201);
      expect((await writeOnly.get('/api/v1/broadcasts')).status).toBe(401);
    });
  });

  describe('update', () => {
    it('changes only the given fields, nested or flat, and answers the full broadcast', async () => {
      const b = await api.fixtures.aBroadcast(channelId, { name: 'Old', body: 'Old body' }, new Date('2026-05-01T00:00:00Z'));
      clock.current = new Date('2026-06-01T12:30:00.000Z');
      const nested = await mine.patch(`/api/v1/broadcasts/${b.id}`, { broadcast: { name: 'New', track_clicks: false } });
      expect(nested.status).toBe(200);
      expect(nested.body).toMatchObject({
        id: b.id,
        name: 'New',
        body: 'Old body',
        subject: b.subject,
        track_clicks: false,
        status: 'draft',
        created_at: '2026-05-01T00:00:00.000Z',
        updated_at: '2026-06-01T12:30:00.000Z',
      });
      const flat = await mine.patch(`/api/v1/broadcasts/${b.id}`, { body: null, html_body: '<b>x</b>', email_headers: [] });
      expect(flat.status).toBe(200);
      expect(flat.body).toMatchObject({ name: 'New', body: null, html_body: '<b>x</b>', email_headers: [] });
      expect((await mine.get(`/api/v1/broadcasts/${b.id}`)).body).toEqual(flat.body);
      const versions = await api.database.db('broadcasts').where({ id: b.id }).first('version');
      expect(versions.version).toBe(2);
      clock.current = new Date('2026-06-01T12:00:00.000Z');
    });

    it.each(['scheduled', 'queueing', 'sending', 'sent', 'failed', 'partial_failure', 'aborted', 'paused'])(
      'refuses an update in %s: 422 "Broadcast cannot be updated in current status"',
      async (status) => {
        const b = await api.fixtures.aBroadcast(channelId, { name: 'Keep' });
        await setStatus(api, b.id, status);
        const res = await mine.patch(`/api/v1/broadcasts/${b.id}`, { broadcast: { name: 'Changed' } });
        expect(res.status).toBe(422);
        expect(res.body).toEqual({ error: 'Broadcast cannot be updated in current status' });
        expect((await mine.get(`/api/v1/broadcasts/${b.id}`)).body.name).toBe('Keep');
      },
    );

    it('refuses a blank subject and invalid Liquid, changing nothing', async () => {
      const b = await api.fixtures.aBroadcast(channelId);
      const blank = await mine.patch(`/api/v1/broadcasts/${b.id}`, { broadcast: { subject: ' ', name: 'X' } });
      expect(blank.status).toBe(422);
      expect(blank.body).toEqual({ error: "Subject can't be blank" });
      const liquid = await mine.patch(`/api/v1/broadcasts/${b.id}`, { broadcast: { body: '{{ unclosed' } });
      expect(liquid.status).toBe(422);
      expect(liquid.body.error).toMatch(/^Body is not valid Liquid: /);
      expect((await mine.get(`/api/v1/broadcasts/${b.id}`)).body).toMatchObject({ name: 'Spring newsletter', body: 'Body' });
    });

    it("answers another channel's broadcast with 404", async () => {
      const b = await api.fixtures.aBroadcast(theirChannelId, { name: 'Theirs' });
      const res = await mine.patch(`/api/v1/broadcasts/${b.id}`, { broadcast: { name: 'Mine now' } });
      expect(res.status).toBe(404);
      expect(res.body).toEqual({ error: 'Broadcast not found' });
      expect((await theirs.get(`/api/v1/broadcasts/${b.id}`)).body.name).toBe('Theirs');
    });

    it('re-validates the schedule of a future_scheduled broadcast and enqueues its due job again', async () => {
      const b = await api.fixtures.aBroadcast(channelId);
      const scheduled = await mine.post(`/api/v1/broadcasts/${b.id}/schedule_broadcast`, {
        broadcast: { scheduled_send_at: '2026-06-02T08:00:00Z', scheduled_timezone: 'UTC' },
      });
      expect(scheduled.status).toBe(200);
      const past = await mine.patch(`/api/v1/broadcasts/${b.id}`, { broadcast: { scheduled_send_at: '2026-06-01T11:00:00Z' } });
      expect(past.status).toBe(422);
      expect(past.body).toEqual({ error: 'Scheduled send time must be in the future' });
      const cleared = await mine.patch(`/api/v1/broadcasts/${b.id}`, { broadcast: { scheduled_send_at: null } });
      expect(cleared.status).toBe(422);
      expect(cleared.body).toEqual({
        error: 'A scheduled broadcast needs a send time and a timezone; use cancel_schedule to unschedule it',
      });

      const moved = await mine.patch(`/api/v1/broadcasts/${b.id}`, {
        broadcast: { scheduled_send_at: '2026-06-03T10:00:00', scheduled_timezone: 'America/New_York' },
      });
      expect(moved.status).toBe(200);
      expect(moved.body).toMatchObject({
        status: 'future_scheduled',
        scheduled_send_at: '2026-06-03T14:00:00.000Z',
        scheduled_timezone: 'America/New_York',
      });
      const jobs = await jobsFor(api, 'broadcasts.due', b.id);
      expect(jobs.map((j) => [j.data, j.start_after.toISOString()])).toEqual([
        [{ broadcastId: b.id, version: 1 }, '2026-06-02T08:00:00.000Z'],
        [{ broadcastId: b.id, version: 2 }, '2026-06-03T14:00:00.000Z'],
      ]);
      // An edit is not a status change: only the schedule call emitted an event.
      expect((await broadcastEvents(api, b.id)).map((e) => e.type)).toEqual(['broadcast.scheduled']);
    });
  });

  describe('delete', () => {
    it('deletes a draft: 200 {message}', async () => {
      const b = await api.fixtures.aBroadcast(channelId);
      const res = await mine.delete(`/api/v1/broadcasts/${b.id}`);
      expect(res.status).toBe(200);
      expect(res.body).toEqual({ message: 'Broadcast deleted successfully' });
      expect((await mine.get(`/api/v1/broadcasts/${b.id}`)).status).toBe(404);
      expect((await mine.delete(`/api/v1/broadcasts/${b.id}`)).status).toBe(404);
    });

    it('deletes a future_scheduled broadcast', async () => {
      const b = await api.fixtures.aBroadcast(channelId, {
        scheduledSendAt: new Date('2026-06-05T00:00:00Z'),
        scheduledTimezone: 'UTC',
      });
      expect((await mine.post(`/api/v1/broadcasts/${b.id}/schedule_broadcast`)).body.status).toBe('future_scheduled');
      expect((await mine.delete(`/api/v1/broadcasts/${b.id}`)).status).toBe(200);
      expect(await api.database.db('broadcasts').where({ id: b.id }).first()).toBeUndefined();
    });

    it.each(['scheduled', 'queueing', 'sending', 'sent', 'failed', 'partial_failure', 'aborted', 'paused'])(
      'refuses to delete in %s: 422 "Broadcast cannot be deleted in current status"',
      async (status) => {
        const b = await api.fixtures.aBroadcast(channelId);
        await setStatus(api, b.id, status);
        const res = await mine.delete(`/api/v1/broadcasts/${b.id}`);
        expect(res.status).toBe(422);
        expect(res.body).toEqual({ error: 'Broadcast cannot be deleted in current status' });
        expect((await mine.get(`/api/v1/broadcasts/${b.id}`)).status).toBe(200);
      },
    );

    it("answers another channel's broadcast with 404 and leaves it", async () => {
      const b = await api.fixtures.aBroadcast(theirChannelId);
      expect((await mine.delete(`/api/v1/broadcasts/${b.id}`)).status).toBe(404);
      expect((await theirs.get(`/api/v1/broadcasts/${b.id}`)).status).toBe(200);
    });

    it('needs broadcasts_write', async () => {
      const b = await api.fixtures.aBroadcast(channelId);
      const readOnly = client(api, await api.fixtures.aToken(channelId, ['broadcasts_read']));
      expect((await readOnly.delete(`/api/v1/broadcasts/${b.id}`)).status).toBe(401);
      expect((await readOnly.patch(`/api/v1/broadcasts/${b.id}`, { name: 'x' })).status).toBe(401);
      expect((await mine.get(`/api/v1/broadcasts/${b.id}`)).status).toBe(200);
    });
  });
});
