import { PERMISSIONS, usableEmailServers } from '@mailcast/domain';
import { ValidationError } from '../errors';
import type { Broadcast, TemplatePart, TemplateScope, Templates } from '../ports';
import { FakeTransactor, FixedClock, fakeRepositories } from '../test-support/fakes';
import { CreateBroadcast } from './create-broadcast';
import { ScheduleBroadcast } from './schedule-broadcast';
import { SendBroadcast } from './send-broadcast';
import { StartDueBroadcast } from './start-due-broadcast';
import { SweepDueBroadcasts } from './sweep-due-broadcasts';

/** Accepts everything but an unclosed output tag: enough to see the use case consult the port. */
class FakeTemplates implements Templates {
  check(source: string): string | null {
    return /\{\{(?![^]*\}\})/.test(source) ? 'output not closed' : null;
  }
  async render<const Parts extends readonly TemplatePart[]>(_channelId: number, parts: Parts, _scope: TemplateScope) {
    return parts.map((part) => part.source) as { -readonly [K in keyof Parts]: string };
  }
  async close(): Promise<void> {}
}

const NOW = new Date('2026-05-01T10:00:00Z');

async function setUp() {
  const repositories = fakeRepositories();
  const transactor = new FakeTransactor(repositories);
  const clock = new FixedClock(NOW);
  const channel = await repositories.channels.create({ name: 'c' });
  const caller = { tokenId: 1, channelId: channel.id, permissions: PERMISSIONS };
  const create = (input: Parameters<CreateBroadcast['execute']>[1]) => new CreateBroadcast(repositories, new FakeTemplates(), clock).execute(caller, input);
  return { repositories, transactor, clock, channel, caller, create };
}

describe('CreateBroadcast', () => {
  it('creates a draft with the channel tracking defaults', async () => {
    const { repositories, create, channel } = await setUp();
    channel.trackOpens = false;
    const { id } = await create({ subject: 'Hi', trackClicks: false });
    expect(repositories.broadcasts.rows[0]).toMatchObject({ id, status: 'draft', trackOpens: false, trackClicks: false, version: 0 });
  });

  it('reports every problem at once, and writes nothing', async () => {
    const { repositories, create } = await setUp();
    await expect(create({ subject: ' ', body: '{{ x', segmentIds: [5], replyTo: 'nope' })).rejects.toEqual(
      new ValidationError(
        "Subject can't be blank, Body is not valid Liquid: output not closed, Reply to is not a valid email address, Segment ids include unknown segments: 5",
      ),
    );
    expect(repositories.broadcasts.rows).toEqual([]);
  });
});

describe('SendBroadcast', () => {
  it('prepares a retry only when sending a failed broadcast again', async () => {
    const { repositories, transactor, clock, caller, create } = await setUp();
    await repositories.emailServers.create({
      channelId: caller.channelId,
      host: 'h',
      port: 25,
      tls: 'none',
      username: null,
      password: null,
      fromEmail: null,
      fromName: null,
    });
    const draft = await create({ subject: 'S', body: 'B' });
    const failed = await create({ subject: 'S', body: 'B' });
    repositories.broadcasts.rows[1]!.status = 'failed';
    const send = new SendBroadcast(transactor, clock);
    expect((await send.execute(caller, { id: draft.id })).status).toBe('scheduled');
    expect((await send.execute(caller, { id: failed.id })).status).toBe('scheduled');
    expect(repositories.broadcasts.retried).toEqual([failed.id]);
    expect(repositories.outbox.events.map((e) => [e.type, e.data.broadcast_id, e.data.status])).toEqual([
      ['broadcast.scheduled', draft.id, 'scheduled'],
      ['broadcast.scheduled', failed.id, 'scheduled'],
    ]);
    expect(repositories.jobs.sent).toEqual([
      { name: 'broadcasts.send', data: { broadcastId: draft.id } },
      { name: 'broadcasts.send', data: { broadcastId: failed.id } },
    ]);
  });

  it.each([
    [[], false, [1, 2]],
    [[2], false, [2]],
    [[3], false, []],
    [[3], true, [1, 2]],
  ])('named servers %j (use any: %s) send through %j', async (named, useAny, expected) => {
    const { repositories, caller, create } = await setUp();
    for (const host of ['a', 'b']) {
      await repositories.emailServers.create({
        channelId: caller.channelId,
        host,
        port: 25,
        tls: 'none',
        username: null,
        password: null,
        fromEmail: null,
        fromName: null,
      });
    }
    await create({ subject: 'S', emailServerIds: [], useAnyEmailServer: useAny });
    const b: Broadcast = { ...repositories.broadcasts.rows[0]!, emailServerIds: named };
    expect(usableEmailServers(b, repositories.emailServers.rows).map((s) => s.id)).toEqual(expected);
  });
});

describe('ScheduleBroadcast', () => {
  it('refuses the status before looking at the parameters', async () => {
    const { repositories, transactor, clock, caller, create } = await setUp();
    const { id } = await create({ subject: 'S' });
    repositories.broadcasts.rows[0]!.status = 'sending';
    await expect(
      new ScheduleBroadcast(transactor, clock).execute(caller, { id, scheduledSendAt: 'garbage', scheduledTimezone: 'Nowhere/Land' }),
    ).rejects.toMatchObject({ message: 'Broadcast cannot be scheduled in current status' });
  });
});

describe('StartDueBroadcast and SweepDueBroadcasts', () => {
  async function scheduled(at: Date) {
    const ctx = await setUp();
    const { id } = await ctx.create({ subject: 'S', body: 'B' });
    await new ScheduleBroadcast(ctx.transactor, ctx.clock).execute(ctx.caller, {
      id,
      scheduledSendAt: at.toISOString(),
      scheduledTimezone: 'UTC',
    });
    ctx.repositories.jobs.sent.length = 0;
    ctx.repositories.outbox.events.length = 0;
    return { ...ctx, id };
  }

  it('starts a due broadcast whose version still holds', async () => {
    const ctx = await scheduled(new Date('2026-05-01T11:00:00Z'));
    ctx.clock.current = new Date('2026-05-01T11:00:00Z');
    expect(await new StartDueBroadcast(ctx.transactor, ctx.clock).execute({ broadcastId: ctx.id, version: 1 })).toBe('started');
    expect(ctx.repositories.broadcasts.rows[0]).toMatchObject({ status: 'scheduled', version: 2 });
    expect(ctx.repositories.outbox.events.map((e) => e.type)).toEqual(['broadcast.scheduled']);
    expect(ctx.repositories.jobs.sent).toEqual([{ name: 'broadcasts.send', data: { broadcastId: ctx.id } }]);
  });

  it('does nothing for a stale version', async () => {
    const ctx = await scheduled(new Date('2026-05-01T11:00:00Z'));
    ctx.clock.current = new Date('2026-05-01T12:00:00Z');
    expect(await new StartDueBroadcast(ctx.transactor, ctx.clock).execute({ broadcastId: ctx.id, version: 0 })).toBe('stale');
    expect(ctx.repositories.broadcasts.rows[0]!.status).toBe('future_scheduled');
    expect(ctx.repositories.jobs.sent).toEqual([]);
    expect(ctx.repositories.outbox.events).toEqual([]);
  });

  it('waits again when fired before its time', async () => {
    const at = new Date('2026-05-01T11:00:00Z');
    const ctx = await scheduled(at);
    ctx.clock.current = new Date(at.getTime() - 1);
    expect(await new StartDueBroadcast(ctx.transactor, ctx.clock).execute({ broadcastId: ctx.id, version: 1 })).toBe('not_due');
    expect(ctx.repositories.jobs.sent).toEqual([{ name: 'broadcasts.due', data: { broadcastId: ctx.id, version: 1 }, startAfter: at }]);
  });

  it('the sweep moves only what is due', async () => {
    const ctx = await scheduled(new Date('2026-05-01T11:00:00Z'));
    const sweep = new SweepDueBroadcasts(ctx.transactor, ctx.clock);
    expect(await sweep.execute()).toEqual([]);
    ctx.clock.current = new Date('2026-05-01T11:00:00Z');
    expect(await sweep.execute()).toEqual([ctx.id]);
    expect(await sweep.execute()).toEqual([]);
    expect(ctx.repositories.jobs.sent).toEqual([{ name: 'broadcasts.send', data: { broadcastId: ctx.id } }]);
  });
});
