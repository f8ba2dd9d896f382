import type { LimitedServer, MailOutcome, SendRateStore } from './ports';
import { ServerGate } from './server-gate';
import { DEFAULT_GATE_OPTIONS } from './gate-options';
import { countingRandom, realTimers } from './test-support/real-timers';

const server = (limits: Partial<LimitedServer>): LimitedServer => ({ id: 1, ...limits });

/** A store whose database is away: every change fails. */
const away: SendRateStore = {
  change: () => Promise.reject(new Error('connect ECONNREFUSED')),
};

describe('ServerGate with the shared limits out of reach', () => {
  it('sends nothing to a limited server and puts the message back in the queue, never failing it', async () => {
    const sent: number[] = [];
    const gate = new ServerGate(away, realTimers, countingRandom(), DEFAULT_GATE_OPTIONS);
    const before = Date.now();
    // As a Mailer does: the message's content (here, all of it) waits for the clearance.
    const outcome = await gate.send([server({ maxPerSecond: 50 })], 20, async (s, clearance) => {
      await clearance?.();
      sent.push(s.id);
      return { kind: 'accepted', response: '250 OK' } satisfies MailOutcome;
    });
    expect(sent).toEqual([]);
    expect(outcome).toMatchObject({ kind: 'deferred', message: 'Sending limits of the email server unavailable' });
    expect((outcome as { until: Date }).until.getTime()).toBeGreaterThanOrEqual(before + DEFAULT_GATE_OPTIONS.throttleDeferMs);
  });

  it('sends to a server without limits, which never needs the store', async () => {
    const gate = new ServerGate(away, realTimers, countingRandom(), DEFAULT_GATE_OPTIONS);
    const outcome = await gate.send([server({})], 20, async (_s, clearance) => {
      expect(clearance).toBeUndefined();
      return { kind: 'accepted', response: '250 OK' };
    });
    expect(outcome).toEqual({ kind: 'accepted', response: '250 OK' });
  });
});
