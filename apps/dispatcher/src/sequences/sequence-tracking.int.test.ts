import { PERSON_USER_AGENT } from '@mailcast/testkit';
import { useSequenceHarness } from '../test-support/sequence-harness';

const person = { headers: { 'user-agent': PERSON_USER_AGENT } };

/** docs/sequences.md, "Tracking": opens and clicks of sequence emails, through SMTP and the public routes. */
describe('sequence runtime: open and click tracking', () => {
  const h = useSequenceHarness();

  /** The email's delivery a minute back: a person reads it later (the machine rules judge by the distance). */
  const readLater = (stepId: number) =>
    h.api.database.db.raw(`UPDATE email_events SET occurred_at = occurred_at - interval '1 minute' WHERE sequence_step_id = ?`, [stepId]);

  it('tracks an open and a click of a step email: events with the step, its figures, the redirect to the stored URL only', async () => {
    const { id, steps } = await h.sequence([
      {
        action: 'send_email',
        subject: 'Welcome',
        html_body:
          '<html><body><p>See <a href="https://example.com/pricing?a=1&amp;b=2">pricing</a> and <a href="https://example.com/docs">docs</a>.</p></body></html>',
      },
    ]);
    const enrolled = await h.enrol(id, 'ana@example.com');
    await h.runDue();
    const [mail] = h.received('ana@example.com');
    const raw = mail!.raw
      .toString()
      .replace(/=\r?\n/g, '')
      .replace(/=3D/g, '=');
    const token = `q${enrolled.id}\\.${steps[0]}-[A-Za-z0-9_-]{22}`;
    const pixel = new RegExp(`<img src="(${h.baseUrl}/t/o/${token})"`).exec(raw)?.[1];
    const links = [...raw.matchAll(new RegExp(`href="(${h.baseUrl}/t/c/${token}/[A-Za-z0-9_-]+)"`, 'g'))].map((m) => m[1]!);
    expect(pixel).toBeDefined();
    expect(new Set(links).size).toBe(2);
    expect(raw).not.toContain('href="https://example.com/pricing');
    await readLater(steps[0]!);

    const opened = await fetch(pixel!, person);
    expect(opened.status).toBe(200);
    expect(opened.headers.get('content-type')).toBe('image/gif');
    // A reload within the window is served, not recorded again.
    expect((await fetch(pixel!, person)).status).toBe(200);
    const messageId = /^Message-ID: (<[^>]+>)\r?$/m.exec(raw)![1];
    const opens = await h.events('email.opened');
    expect(opens).toHaveLength(1);
    expect(opens[0]!.data).toMatchObject({
      receipted_type: 'SequenceStep',
      receipt_id: enrolled.id,
      receipted_id: steps[0],
      sequence_id: id,
      sequence_step_id: steps[0],
      email: 'ana@example.com',
      identifier: messageId,
      delivered: true,
      opened: true,
      machine: false,
    });

    const clicked = await fetch(links[0]!, { ...person, redirect: 'manual' });
    expect(clicked.status).toBe(302);
    expect(clicked.headers.get('location')).toBe('https://example.com/pricing?a=1&b=2');
    const clicks = await h.events('email.clicked');
    expect(clicks).toHaveLength(1);
    expect(clicks[0]!.data).toMatchObject({ sequence_id: id, sequence_step_id: steps[0], clicked: true, opened: true, machine: false });
    // Another link of the same email is another click, but the same subscriber for the figures.
    expect((await fetch(links[1]!, { ...person, redirect: 'manual' })).headers.get('location')).toBe('https://example.com/docs');
    expect(await h.events('email.clicked')).toHaveLength(2);

    const step = await h.request('GET', `/api/v1/sequences/${id}/steps/${steps[0]}`);
    expect(step.body.statistics).toEqual({ sent: 1, delivered: 1, opens: 1, clicks: 1, bounces: 0, unsubscribes: 0 });
    const recorded = await h.api.database.db('email_events').where({ sequence_step_id: steps[0] }).whereIn('type', ['opened', 'clicked']).orderBy('id');
    expect(recorded.map((e) => [e.type, e.machine, e.data])).toEqual([
      ['opened', false, {}],
      ['clicked', false, { url: 'https://example.com/pricing?a=1&b=2' }],
      ['clicked', false, { url: 'https://example.com/docs' }],
    ]);

    // A forged token, or a link the step never had, names nothing: no redirect anywhere.
    const forged = links[0]!.replace(/-[A-Za-z0-9_-]{22}\//, `-${'A'.repeat(22)}/`);
    expect((await fetch(forged, { ...person, redirect: 'manual' })).status).toBe(404);
    expect((await fetch(links[0]!.replace(/\/[A-Za-z0-9_-]+$/, '/unknownlink'), { ...person, redirect: 'manual' })).status).toBe(404);
    expect((await fetch(pixel!.replace(/-[A-Za-z0-9_-]{22}$/, `-${'A'.repeat(22)}`), person)).status).toBe(404);
  });

  it("classifies an open by a bot agent as a machine's", async () => {
    const { id, steps } = await h.sequence([{ action: 'send_email', subject: 'Hello', body: 'Plain text, no links.' }]);
    const enrolled = await h.enrol(id, 'bo@example.com');
    await h.runDue();
    const raw = h
      .received('bo@example.com')[0]!
      .raw.toString()
      .replace(/=\r?\n/g, '')
      .replace(/=3D/g, '=');
    const pixel = new RegExp(`<img src="(${h.baseUrl}/t/o/q${enrolled.id}\\.${steps[0]}-[A-Za-z0-9_-]{22})"`).exec(raw)![1]!;
    await readLater(steps[0]!);
    // Node's own agent is on the bot list (docs/engagement.md).
    expect((await fetch(pixel)).status).toBe(200);
    expect((await h.events('email.opened')).at(-1)!.data).toMatchObject({ sequence_step_id: steps[0], machine: true });
    const row = await h.api.database.db('email_events').where({ sequence_step_id: steps[0], type: 'opened' }).first('machine', 'machine_reason');
    expect(row).toEqual({ machine: true, machine_reason: 'user_agent' });
  });

  it('a sequence that tracks neither opens nor clicks sends its links as they are and no pixel', async () => {
    const { id } = await h.sequence([{ action: 'send_email', subject: 'Plain', html_body: '<p><a href="https://example.com/x">x</a></p>' }], {
      track_opens: false,
      track_clicks: false,
    });
    await h.enrol(id, 'cy@example.com');
    await h.runDue();
    const raw = h
      .received('cy@example.com')[0]!
      .raw.toString()
      .replace(/=\r?\n/g, '')
      .replace(/=3D/g, '=');
    expect(raw).toContain('href="https://example.com/x"');
    expect(raw).not.toContain('/t/o/');
    expect(raw).not.toContain('/t/c/');
  });
});
