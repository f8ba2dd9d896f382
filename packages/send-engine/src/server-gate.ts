import { isThrottlingReply, pickServer, type SendLimits } from '@mailcast/domain';
import type { Clearance, LimitedServer, MailOutcome, RandomSource, SendRateStore, Timers } from './ports';
import { DEFAULT_GATE_OPTIONS, type GateOptions } from './gate-options';
import { ServerLane } from './server-lane';
import { NoSlot, SlotClearance } from './slot-clearance';

/** A message the limits sent back to the queue: retried at `until`, never a bounce or a failure. */
export interface DeferredOutcome {
  kind: 'deferred';
  until: Date;
  message: string;
}
export type GatedOutcome = MailOutcome | DeferredOutcome;

export function sendLimitsOf(server: LimitedServer): SendLimits {
  return {
    perSecond: server.maxPerSecond ?? null,
    perMinute: server.maxPerMinute ?? null,
    perHour: server.maxPerHour ?? null,
    perDay: server.maxPerDay ?? null,
  };
}

/**
 * Where each message goes and when (docs/sending-limits.md): the server with the most free
 * capacity among those that answer, in a slot of its shared limits; a throttling answer slows the
 * server down and the message is sent again later; a server that cannot be reached is left out
 * until a probe finds it answering. One gate per process (the send engine's), shared by every
 * job, so the jobs of one dispatcher share its slots.
 */
export class ServerGate {
  private readonly lanes = new Map<number, ServerLane>();
  private turn = 0;
  /** Names this process's permits in the shared state: unique among live dispatchers. */
  private readonly holderId: string;

  constructor(
    private readonly store: SendRateStore,
    private readonly timers: Timers,
    random: RandomSource,
    private readonly options: GateOptions = DEFAULT_GATE_OPTIONS,
  ) {
    const hex = Array.from(random.bytes(6), (b) => b.toString(16).padStart(2, '0')).join('');
    this.holderId = `${timers.now().toString(36)}.${hex}`;
  }

  private lane(server: LimitedServer, room = Infinity): ServerLane {
    let lane = this.lanes.get(server.id);
    if (lane === undefined) {
      this.lanes.set(server.id, (lane = new ServerLane(server.id, this.store, this.options, this.timers, this.holderId)));
    }
    lane.limits = sendLimitsOf(server);
    // A caller without a bound of its own (a transactional) leaves the broadcasts' in place.
    if (Number.isFinite(room)) lane.room = room;
    return lane;
  }

  private deferred(error: NoSlot): DeferredOutcome {
    return error.until === null ? this.later(error.message) : { kind: 'deferred', until: new Date(error.until), message: error.message };
  }

  /** Back to the queue for a while: never a bounce or a failure, and the attempt does not count. */
  private later(message: string): DeferredOutcome {
    return { kind: 'deferred', until: new Date(this.timers.now() + this.options.throttleDeferMs), message };
  }

  /**
   * Sends one message through one of `servers` (at least one), by `send`; `room`: the messages a
   * server with a per-second limit may have in flight from this process (the mailer's connections).
   * Under limits `send` is given a clearance for the message's content (Mailer.send): the content
   * waits for the message's slot, so the server takes nothing before it (slot-clearance.ts,
   * docs/sending-limits.md). `signal` withdraws a message still waiting.
   */
  async send<S extends LimitedServer>(
    servers: readonly S[],
    room: number,
    send: (server: S, clearance?: Clearance) => Promise<MailOutcome>,
    signal?: AbortSignal,
  ): Promise<GatedOutcome> {
    const refused = new Set<number>();
    let throttles = 0;
    let last: MailOutcome | null = null;
    for (;;) {
      const now = this.timers.now();
      const open = servers.filter((s) => !refused.has(s.id));
      if (open.length === 0) return last ?? { kind: 'rejected', permanent: false, code: null, message: 'No email server' };
      // A server away is skipped while another may take the message; with none, it is tried anyway.
      const answering = open.filter((s) => this.lane(s).reach.available(now));
      const candidates = answering.length > 0 ? answering : open;
      const server =
        candidates[
          pickServer(
            candidates.map((s) => this.lane(s).waitEstimate(now)),
            this.turn++,
          )
        ]!;
      const lane = this.lane(server, room);
      const slot = new SlotClearance(lane, signal);
      let outcome: MailOutcome;
      let probe = false;
      try {
        if (lane.throttledNow(this.timers.now())) await slot.takeNow();
        probe = lane.reach.sending(this.timers.now());
        outcome = await send(server, lane.bound(this.timers.now()) ? slot.clearance : undefined);
      } catch (error) {
        if (error instanceof NoSlot) return this.deferred(error);
        throw error;
      } finally {
        slot.finish();
      }
      if (outcome.kind === 'rejected' && outcome.code === null) {
        // No SMTP answer at all: the server is away. Another one may take the message.
        lane.reach.unreachable(this.timers.now(), probe);
        refused.add(server.id);
        last = outcome;
        continue;
      }
      lane.reach.reached();
      if (outcome.kind === 'rejected' && isThrottlingReply(outcome.code, outcome.message)) {
        try {
          await lane.throttled();
        } catch {
          return this.later(outcome.message);
        }
        if (++throttles <= this.options.throttleRetries) continue;
        return this.later(outcome.message);
      }
      return outcome;
    }
  }
}
