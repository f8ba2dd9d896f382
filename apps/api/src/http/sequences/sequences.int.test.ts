import request from 'supertest';
import { expectResponseMatchesDocument } from '../../openapi/test-support/match-document';
import { useApi } from '../../test-support/harness';

/** docs/sequences.md: sequences and their step tree through HTTP. */
describe('sequences API', () => {
  const api = useApi();
  let token: string;
  let channelId: number;

  beforeAll(async () => {
    const tenant = await api.fixtures.aTenant();
    token = tenant.token;
    channelId = tenant.channel.id;
  });

  const as = (t = token) => ({
    get: (path: string) => request(api.app).get(path).set('Authorization', `Bearer ${t}`),
    post: (path: string, body: object = {}) => request(api.app).post(path).set('Authorization', `Bearer ${t}`).send(body),
    patch: (path: string, body: object) => request(api.app).patch(path).set('Authorization', `Bearer ${t}`).send(body),
    delete: (path: string, body: object = {}) => request(api.app).delete(path).set('Authorization', `Bearer ${t}`).send(body),
  });

  const newSequence = async (body: object = {}) => {
    const created = await as().post('/api/v1/sequences', body);
    expect(created.status).toBe(201);
    return created.body.id as number;
  };
  const addStep = async (sequenceId: number, body: object) => {
    const created = await as().post(`/api/v1/sequences/${sequenceId}/steps`, body);
    expect([created.status, created.body]).toEqual([201, expect.objectContaining({ id: expect.any(Number) })]);
    return created.body.id as number;
  };
  /** The tree as `id(children)` from the steps list, which is depth-first. */
  const shape = async (sequenceId: number) => {
    const list = await as().get(`/api/v1/sequences/${sequenceId}/steps`);
    const steps = list.body.data as Array<{ id: number; parent_id: number | null; position: number; action: string; branch?: boolean }>;
    expect(steps.map((s) => s.position)).toEqual(steps.map((_, i) => i));
    const render = (id: number): string => {
      const s = steps.find((x) => x.id === id)!;
      const kids = steps.filter((x) => x.parent_id === id).map((k) => render(k.id));
      const name = s.action === 'entry_point' ? 'E' : s.action === 'condition_branch' ? (s.branch ? 'T' : 'F') : `${s.id}`;
      return kids.length === 0 ? name : `${name}(${kids.join(' ')})`;
    };
    return { tree: render(steps[0]!.id), steps };
  };

  it('creates with defaults, reads, lists, updates and deletes', async () => {
    const created = await as().post('/api/v1/sequences', { sequence: { name: 'Welcome' } });
    expect(created.status).toBe(201);
    expect(created.body).toEqual({
      id: expect.any(Number),
      label: 'Welcome',
      active: false,
      track_opens: true,
      track_clicks: true,
      use_any_email_server: true,
      email_server_ids: [],
      init_tag: null,
      init_segment_id: null,
      topic_id: null,
      excluded_segment_ids: [],
      parent_sequence_id: null,
      subscribers_count: 0,
      steps_count: 0,
      created_at: expect.any(String),
      updated_at: expect.any(String),
    });
    const id = created.body.id as number;
    expect((await as().post('/api/v1/sequences', {})).body.label).toBe('Untitled sequence');

    const withSteps = await as().get(`/api/v1/sequences/${id}?include_steps=true`);
    expect(withSteps.body.steps).toEqual([expect.objectContaining({ action: 'entry_point', parent_id: null, position: 0 })]);
    expect((await as().get(`/api/v1/sequences/${id}`)).body.steps).toBeUndefined();

    const list = await as().get('/api/v1/sequences?limit=1');
    expect(list.body).toEqual({ data: [expect.objectContaining({ label: 'Untitled sequence' })], total: 2 });

    const updated = await as().patch(`/api/v1/sequences/${id}`, { label: 'Onboarding', init_tag: 'new', colour: 'red' });
    expect(updated.body).toMatchObject({ id, label: 'Onboarding', init_tag: 'new', warnings: [expect.objectContaining({ param: 'colour' })] });

    expect((await as().delete(`/api/v1/sequences/${id}`)).body).toEqual({ message: 'Sequence deleted' });
    expect((await as().get(`/api/v1/sequences/${id}`)).status).toBe(404);
  });

  it('keeps each channel to its own sequences, and needs the sequence permissions', async () => {
    const other = await api.fixtures.aTenant();
    const id = await newSequence();
    expect((await as(other.token).get(`/api/v1/sequences/${id}`)).status).toBe(404);
    expect((await as(other.token).post(`/api/v1/sequences/${id}/steps`, { subject: 'x' })).status).toBe(404);
    const readOnly = await api.fixtures.aToken(channelId, ['sequences_read']);
    expect((await as(readOnly).get(`/api/v1/sequences/${id}`)).status).toBe(200);
    expect((await as(readOnly).patch(`/api/v1/sequences/${id}`, { label: 'x' })).status).toBe(401);
    const noSubscribers = await api.fixtures.aToken(channelId, ['sequences_read', 'sequences_write']);
    expect((await as(noSubscribers).post(`/api/v1/sequences/${id}/add_subscriber`, { email: 'a@b.co' })).status).toBe(401);
    expect((await as(noSubscribers).get(`/api/v1/sequences/${id}/list_subscribers`)).status).toBe(401);
  });

  it('refuses settings that cannot hold, naming the field, and writes nothing', async () => {
    const other = await api.fixtures.aTenant();
    const foreignSegment = (await as(other.token).post('/api/v1/segments', { name: 'theirs' })).body.id as number;
    const segment = (await as().post('/api/v1/segments', { name: 'mine' })).body.id as number;
    const foreignSequence = (await as(other.token).post('/api/v1/sequences', {})).body.id as number;
    const before = (await as().get('/api/v1/sequences')).body.total as number;
    const cases: Array<[object, string]> = [
      [{ use_any_email_server: false }, 'email_server_ids'],
      [{ email_server_ids: [999_999] }, 'email_server_ids'],
      [{ init_segment_id: foreignSegment }, 'init_segment_id'],
      [{ excluded_segment_ids: [foreignSegment] }, 'excluded_segment_ids'],
      [{ init_segment_id: segment, excluded_segment_ids: [segment] }, 'excluded_segment_ids'],
      [{ parent_sequence_id: foreignSequence }, 'parent_sequence_id'],
      [{ topic_id: 5 }, 'topic_id'],
      [{ active: 'yes' }, 'active'],
      [{ label: ' ' }, 'label'],
    ];
    for (const [body, field] of cases) {
      const answer = await as().post('/api/v1/sequences', body);
      expect([answer.status, Object.keys(answer.body.errors ?? {})]).toEqual([422, [field]]);
    }
    expect((await as().get('/api/v1/sequences')).body.total).toBe(before);
  });

  it("accepts a topic of this channel and refuses another channel's (docs/sequences.md, Topic and exclusions)", async () => {
    const other = await api.fixtures.aTenant();
    const now = new Date();
    const topic = async (channel: number) =>
      Number(
        (
          (await api.database
            .db('topics')
            .insert({ channel_id: channel, name: 'News', storage: 'custom_data', custom_data_key: 'news', created_at: now, updated_at: now })
            .returning('id')) as Array<{ id: number }>
        )[0]!.id,
      );
    const mine = await topic(channelId);
    const theirs = await topic(other.channel.id);
    const id = await newSequence({ topic_id: mine });
    expect((await as().get(`/api/v1/sequences/${id}`)).body.topic_id).toBe(mine);
    const refused = await as().patch(`/api/v1/sequences/${id}`, { topic_id: theirs });
    expect([refused.status, Object.keys(refused.body.errors ?? {})]).toEqual([422, ['topic_id']]);
    expect((await as().get(`/api/v1/sequences/${id}`)).body.topic_id).toBe(mine);
    const cleared = await as().patch(`/api/v1/sequences/${id}`, { topic_id: null });
    expect([cleared.status, cleared.body.topic_id]).toEqual([200, null]);
  });

  it('refuses turning off the tracking a condition reads', async () => {
    const id = await newSequence();
    await addStep(id, { action: 'condition', condition_setting: 'any_email_clicked' });
    const off = await as().patch(`/api/v1/sequences/${id}`, { track_clicks: false, label: 'renamed' });
    expect([off.status, off.body.errors]).toEqual([422, { track_clicks: [expect.stringContaining('condition')] }]);
    expect((await as().get(`/api/v1/sequences/${id}`)).body).toMatchObject({ track_clicks: true, label: 'Untitled sequence' });
    expect((await as().patch(`/api/v1/sequences/${id}`, { track_opens: false })).status).toBe(200);
    const condition = await as().post(`/api/v1/sequences/${id}/steps`, { action: 'condition', condition_setting: 'previous_email_opened' });
    expect([condition.status, Object.keys(condition.body.errors)]).toEqual([422, ['condition_setting']]);
  });

  it('refuses deleting a sequence another one moves into or a form enrols in, and a segment or template a sequence uses', async () => {
    const target = await newSequence();
    const mover = await newSequence();
    await addStep(mover, { action: 'move_to_sequence', target_sequence_id: target });
    const refused = await as().delete(`/api/v1/sequences/${target}`);
    expect([refused.status, refused.body.error]).toEqual([422, expect.stringContaining('move_to_sequence')]);
    expect((await as().delete(`/api/v1/sequences/${mover}`)).status).toBe(200);
    expect((await as().delete(`/api/v1/sequences/${target}`)).status).toBe(200);

    const enrolled = await newSequence();
    const form = await as().post('/api/v1/opt_in_forms', { opt_in_form: { label: 'Sign-ups', automation_settings: { sequence_ids: [enrolled] } } });
    expect(form.status).toBe(201);
    const byForm = await as().delete(`/api/v1/sequences/${enrolled}`);
    expect([byForm.status, byForm.body]).toEqual([422, { error: `Sequence is enrolled into by an opt-in form (${form.body.id})` }]);
    expect((await as().patch(`/api/v1/opt_in_forms/${form.body.id}`, { opt_in_form: { automation_settings: { sequence_ids: [] } } })).status).toBe(200);
    expect((await as().delete(`/api/v1/sequences/${enrolled}`)).status).toBe(200);

    const segment = (await as().post('/api/v1/segments', { name: 'trigger' })).body.id as number;
    const excluded = (await as().post('/api/v1/segments', { name: 'excluded' })).body.id as number;
    const template = (await as().post('/api/v1/templates', { label: 'T', subject: 'From the template', body: 'B' })).body.id as number;
    const id = await newSequence({ init_segment_id: segment, excluded_segment_ids: [excluded] });
    await addStep(id, { template_id: template });
    for (const path of [`/api/v1/segments/${segment}`, `/api/v1/segments/${excluded}`, `/api/v1/templates/${template}`]) {
      const answer = await as().delete(path);
      expect([answer.status, answer.body.error]).toEqual([422, expect.stringMatching(/used by a sequence/)]);
    }
    await as().delete(`/api/v1/sequences/${id}`);
    expect((await as().delete(`/api/v1/segments/${segment}`)).status).toBe(200);
    expect((await as().delete(`/api/v1/templates/${template}`)).status).toBe(200);
  });

  it('creates each step type with its fields, a template filling the empty ones', async () => {
    const id = await newSequence();
    const target = await newSequence();
    const template = (await as().post('/api/v1/templates', { label: 'T', subject: 'Templated', body: 'Hello' })).body.id as number;
    const email = await as().post(`/api/v1/sequences/${id}/steps`, { step: { subject: 'Hi {{ subscriber.first_name }}', body: 'B' } });
    expect(email.body).toEqual({
      id: expect.any(Number),
      sequence_id: id,
      action: 'send_email',
      label: null,
      parent_id: expect.any(Number),
      position: 1,
      subject: 'Hi {{ subscriber.first_name }}',
      preheader: null,
      body: 'B',
      html_body: null,
      template_id: null,
      // docs/reputation-guard.md, "Sequence email steps".
      paused: false,
      pause_reason: null,
      created_at: expect.any(String),
      updated_at: expect.any(String),
    });
    const fromTemplate = await as().post(`/api/v1/sequences/${id}/steps`, { template_id: template });
    expect(fromTemplate.body).toMatchObject({ subject: 'Templated', body: 'Hello', template_id: template });
    const cases: Array<[object, object]> = [
      [{ action: 'delay', delay: 3600 }, { delay: 3600 }],
      [
        { action: 'delay_until_time', time: '09:00', timezone: 'America/New_York' },
        { time: '09:00', timezone: 'America/New_York' },
      ],
      [{ action: 'move_to_sequence', target_sequence_id: target }, { target_sequence_id: target }],
      [{ action: 'add_tag_to_subscriber', taggify_list: 'a,b' }, { tags: ['a', 'b'] }],
      [{ action: 'remove_tag_from_subscriber', tags: ['a'] }, { tags: ['a'] }],
      [{ action: 'deactivate_subscriber', label: 'Stop' }, { label: 'Stop' }],
      [
        { action: 'make_http_request', url: 'https://93.184.215.14/hook' },
        { http_method: 'POST', url: 'https://93.184.215.14/hook', headers: {}, body: null },
      ],
    ];
    for (const [body, fields] of cases) {
      const answer = await as().post(`/api/v1/sequences/${id}/steps`, body);
      expect([answer.status, answer.body]).toEqual([201, expect.objectContaining(fields)]);
    }
    const got = await as().get(`/api/v1/sequences/${id}/steps/${email.body.id}`);
    expect(got.body.statistics).toEqual({ sent: 0, delivered: 0, opens: 0, clicks: 0, bounces: 0, unsubscribes: 0 });
    expect((await as().get(`/api/v1/sequences/${id}`)).body.steps_count).toBe(9);
  });

  it('refuses a step that cannot be built, naming the field, and writes nothing', async () => {
    const id = await newSequence();
    const other = await api.fixtures.aTenant();
    const foreignTemplate = (await as(other.token).post('/api/v1/templates', { label: 'T', subject: 'S', body: 'B' })).body.id as number;
    const foreignSequence = (await as(other.token).post('/api/v1/sequences', {})).body.id as number;
    const cases: Array<[object, string]> = [
      [{ action: 'teleport' }, 'action'],
      [{ action: 'entry_point' }, 'action'],
      [{ action: 'condition_branch' }, 'action'],
      [{ body: 'no subject' }, 'subject'],
      [{ subject: 'Hi {{ unclosed' }, 'subject'],
      [{ template_id: foreignTemplate }, 'template_id'],
      [{ action: 'delay', delay: 0 }, 'delay'],
      [{ action: 'delay', delay: 31_536_001 }, 'delay'],
      [{ action: 'delay_until_time', time: '25:00' }, 'time'],
      [{ action: 'delay_until_time', time: '10:00', timezone: 'Nowhere/City' }, 'timezone'],
      [{ action: 'condition', condition_setting: 'sometimes' }, 'condition_setting'],
      [{ action: 'move_to_sequence', target_sequence_id: foreignSequence }, 'target_sequence_id'],
      [{ action: 'move_to_sequence', target_sequence_id: id }, 'target_sequence_id'],
      [{ action: 'add_tag_to_subscriber' }, 'tags'],
      [{ action: 'make_http_request', url: 'http://169.254.169.254/latest' }, 'url'],
      [{ subject: 'x', parent_id: 999_999 }, 'parent_id'],
    ];
    for (const [body, field] of cases) {
      const answer = await as().post(`/api/v1/sequences/${id}/steps`, body);
      const named = answer.body.errors ? Object.keys(answer.body.errors) : [answer.body.error];
      expect([JSON.stringify(body), answer.status, named]).toEqual([JSON.stringify(body), 422, [expect.stringContaining(field)]]);
    }
    expect((await as().get(`/api/v1/sequences/${id}/steps`)).body.total).toBe(1);
  });

  it('updates a step field by field, never its action or place', async () => {
    const id = await newSequence();
    const step = await addStep(id, { subject: 'One', body: 'Body' });
    const changed = await as().patch(`/api/v1/sequences/${id}/steps/${step}`, { step: { subject: 'Two', label: 'First' } });
    expect(changed.body).toMatchObject({ subject: 'Two', body: 'Body', label: 'First' });
    const entry = (await shape(id)).steps[0]!.id;
    for (const [body, field] of [
      [{ action: 'delay' }, 'action'],
      [{ parent_id: step }, 'parent_id'],
      [{ subject: '' }, 'subject'],
    ] as const) {
      const answer = await as().patch(`/api/v1/sequences/${id}/steps/${step}`, body);
      expect([answer.status, Object.keys(answer.body.errors)]).toEqual([422, [field]]);
    }
    expect((await as().patch(`/api/v1/sequences/${id}/steps/${entry}`, { label: 'x' })).status).toBe(422);
    expect((await as().get(`/api/v1/sequences/${id}/steps/${step}`)).body.subject).toBe('Two');
  });

  it('inserts steps: at the end by default, else under the parent, whose former child moves under the new step', async () => {
    const id = await newSequence();
    const a = await addStep(id, { subject: 'a' });
    const b = await addStep(id, { action: 'delay', delay: 60 });
    expect((await shape(id)).tree).toBe(`E(${a}(${b}))`);
    const entry = (await shape(id)).steps[0]!.id;
    const c = await addStep(id, { subject: 'c', parent_id: entry });
    expect((await shape(id)).tree).toBe(`E(${c}(${a}(${b})))`);
    const cond = await addStep(id, { action: 'condition', condition_setting: 'any_email_opened', parent_id: c });
    expect((await shape(id)).tree).toBe(`E(${c}(${cond}(T(${a}(${b})) F)))`);
    // The main line follows true branches: the default parent is now the end of the true line.
    const d = await addStep(id, { subject: 'd' });
    expect((await shape(id)).tree).toBe(`E(${c}(${cond}(T(${a}(${b}(${d}))) F)))`);
    const refused = await as().post(`/api/v1/sequences/${id}/steps`, { subject: 'x', parent_id: cond });
    expect([refused.status, refused.body.error]).toEqual([422, expect.stringContaining('parent_id')]);
  });

  it('moves steps and refuses the moves that cannot be', async () => {
    const id = await newSequence();
    const other = await newSequence();
    const a = await addStep(id, { subject: 'a' });
    const cond = await addStep(id, { action: 'condition', condition_setting: 'any_email_opened' });
    const b = await addStep(id, { subject: 'b' });
    const { steps } = await shape(id);
    const entry = steps[0]!.id;
    const [yes, no] = [steps.find((s) => s.branch === true)!.id, steps.find((s) => s.branch === false)!.id];
    expect((await shape(id)).tree).toBe(`E(${a}(${cond}(T(${b}) F)))`);

    const moved = await as().post(`/api/v1/sequences/${id}/steps/${b}/move`, { under_id: no });
    expect(moved.body).toMatchObject({ id: b, parent_id: no });
    expect((await shape(id)).tree).toBe(`E(${a}(${cond}(T F(${b}))))`);
    // A condition moves with both branches; the target's former child goes to the end of its true line.
    await as().post(`/api/v1/sequences/${id}/steps/${cond}/move`, { step: { under_id: entry } });
    expect((await shape(id)).tree).toBe(`E(${cond}(T(${a}) F(${b})))`);
    // A plain step moves alone: its child re-attaches to its old parent.
    const c = await addStep(id, { subject: 'c', parent_id: a });
    await as().post(`/api/v1/sequences/${id}/steps/${a}/move`, { under_id: b });
    expect((await shape(id)).tree).toBe(`E(${cond}(T(${c}) F(${b}(${a}))))`);

    const otherEntry = (await shape(other)).steps[0]!.id;
    const refusals: Array<[number, number | undefined, RegExp]> = [
      [entry, cond, /entry point/],
      [yes, b, /branch/],
      [b, b, /itself/],
      [cond, a, /under the moved step/],
      [a, otherEntry, /not a step of this sequence/],
      [a, b, /already the step's parent/],
      [a, undefined, /under_id/],
    ];
    for (const [step, under, message] of refusals) {
      const answer = await as().post(`/api/v1/sequences/${id}/steps/${step}/move`, under === undefined ? {} : { under_id: under });
      expect([answer.status, JSON.stringify(answer.body)]).toEqual([422, expect.stringMatching(message)]);
    }
    expect((await shape(id)).tree).toBe(`E(${cond}(T(${c}) F(${b}(${a}))))`);
  });

  it('deletes steps: children re-attach, a condition keeps its true line; entry point and branches stay', async () => {
    const id = await newSequence();
    const a = await addStep(id, { subject: 'a' });
    const cond = await addStep(id, { action: 'condition', condition_setting: 'any_email_opened' });
    const b = await addStep(id, { subject: 'b' });
    const no = (await shape(id)).steps.find((s) => s.branch === false)!.id;
    const c = await addStep(id, { subject: 'c', parent_id: no });
    expect((await shape(id)).tree).toBe(`E(${a}(${cond}(T(${b}) F(${c}))))`);
    for (const step of [(await shape(id)).steps[0]!.id, no]) expect((await as().delete(`/api/v1/sequences/${id}/steps/${step}`)).status).toBe(422);
    expect((await as().delete(`/api/v1/sequences/${id}/steps/${cond}`)).body).toEqual({ message: 'Step deleted' });
    expect((await shape(id)).tree).toBe(`E(${a}(${b}))`);
    expect((await as().get(`/api/v1/sequences/${id}/steps/${c}`)).status).toBe(404);
    await as().delete(`/api/v1/sequences/${id}/steps/${a}`);
    expect((await shape(id)).tree).toBe(`E(${b})`);
  });

  it('answers as the OpenAPI document says', async () => {
    const id = await newSequence({ label: 'Documented', init_tag: 'doc' });
    const answers = [
      await as().get('/api/v1/sequences'),
      await as().patch(`/api/v1/sequences/${id}`, { active: true, unknown_field: 1 }),
      await as().post(`/api/v1/sequences/${id}/steps`, { subject: 'Hi' }),
      await as().post(`/api/v1/sequences/${id}/steps`, { action: 'condition', condition_setting: 'any_email_clicked' }),
      await as().post(`/api/v1/sequences/${id}/steps`, { action: 'make_http_request', url: 'https://93.184.215.14/x', headers: { 'X-A': 'b' } }),
      await as().get(`/api/v1/sequences/${id}?include_steps=true`),
      await as().get(`/api/v1/sequences/${id}/steps`),
      await as().post(`/api/v1/sequences/${id}/add_subscriber`, { subscriber: { email: 'doc@example.com' } }),
      await as().post(`/api/v1/sequences/${id}/add_subscriber`, { email: 'doc@example.com' }),
      await as().get(`/api/v1/sequences/${id}/list_subscribers`),
      await as().delete(`/api/v1/sequences/${id}/remove_subscriber`, { email: 'doc@example.com' }),
      await as().post(`/api/v1/sequences/${id}/steps`, { action: 'delay' }),
      await as().get(`/api/v1/sequences/${id}/steps/999999`),
    ];
    const steps = answers[6]!.body.data as Array<{ id: number; action: string }>;
    const email = steps.find((s) => s.action === 'send_email')!.id;
    answers.push(await as().get(`/api/v1/sequences/${id}/steps/${email}`));
    const condition = steps.find((s) => s.action === 'condition')!.id;
    answers.push(await as().post(`/api/v1/sequences/${id}/steps/${condition}/move`, { under_id: steps[0]!.id }));
    answers.push(await as().delete(`/api/v1/sequences/${id}/steps/${email}`));
    answers.push(await as().delete(`/api/v1/sequences/${id}`));
    expect(answers.map((a) => a.status)).toEqual([200, 200, 201, 201, 201, 200, 200, 201, 200, 200, 200, 422, 404, 200, 200, 200, 200]);
    for (const answer of answers) expectResponseMatchesDocument(answer);
  });
});
