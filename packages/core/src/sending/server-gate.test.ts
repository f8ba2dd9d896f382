import type { EmailServer, MailOutcome, SendRateStore } from '../ports';
import { EMAIL_SERVER_DEFAULTS } from '../ports';
import { ServerGate } from './server-gate';
import { DEFAULT_GATE_OPTIONS } from './gate-options';

const server = (limits: Partial<EmailServer>): EmailServer => ({
  ...EMAIL_SERVER_DEFAULTS,
  id: 1,
  channelId: 1,
  host: '127.0.0.1',
  port: 2525,
  tls: 'none',
  username: null,
  password: null,
  fromEmail: null,
  fromName: null,
  createdAt: new Date(0),
  updatedAt: new Date(0),
  ...limits,
});

/** A store whose database is away: every change fails. */
const away: SendRateStore = {
  change: () => Promise.reject(new Error('connect ECONNREFUSED')),
};

describe('ServerGate with the shared limits out of reach', () => {
  it('sends nothing to a limited server and puts the message back in the queue, never failing it', async () => {
    const sent: number[] = [];
    const gate = new ServerGate(away, DEFAULT_GATE_OPTIONS);
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
    const gate = new ServerGate(away, DEFAULT_GATE_OPTIONS);
    const outcome = await gate.send([server({})], 20, async (_s, clearance) => {
      expect(clearance).toBeUndefined();
      return { kind: 'accepted', response: '250 OK' };
    });
    expect(outcome).toEqual({ kind: 'accepted', response: '250 OK' });
  });
});
