import { decideSettlement, type SendOutcome } from './outcome-settlement';

describe('decideSettlement: what an outcome means for its recipient', () => {
  const at = new Date('2026-11-25T10:00:00Z');
  const schedule = [60_000, 300_000];
  const later = (ms: number) => new Date(at.getTime() + ms);
  const accepted: SendOutcome = { kind: 'accepted', response: '250 OK' };
  const hard: SendOutcome = { kind: 'rejected', permanent: true, code: 550, message: '550 no such user' };
  const soft: SendOutcome = { kind: 'rejected', permanent: false, code: 451, message: '451 try later' };
  const unreachable: SendOutcome = { kind: 'rejected', permanent: false, code: null, message: 'ECONNREFUSED' };
  const unsendable: SendOutcome = { kind: 'unsendable', message: 'No email server configured' };
  const deferred: SendOutcome = { kind: 'deferred', until: later(5_000), message: 'Sending limit of the email server reached' };

  it.each([
    ['accepted', accepted, 1, 'delivered', { status: 'sent', at }, true],
    ['a 5xx rejection', hard, 1, 'bounced', { status: 'bounced', at, error: '550 no such user' }, true],
    ['a 4xx on the first attempt', soft, 1, 'delayed', { status: 'pending', nextAttemptAt: later(60_000), error: '451 try later' }, true],
    ['a 4xx on the second attempt', soft, 2, 'delayed', { status: 'pending', nextAttemptAt: later(300_000), error: '451 try later' }, true],
    ['a 4xx once the schedule ran out', soft, 3, 'failed', { status: 'failed', at, error: '451 try later' }, true],
    ['an unreachable server', unreachable, 1, 'delayed', { status: 'pending', nextAttemptAt: later(60_000), error: 'ECONNREFUSED' }, false],
    ['an unreachable server, schedule run out', unreachable, 3, 'failed', { status: 'failed', at, error: 'ECONNREFUSED' }, false],
    [
      'held back by limits, schedule run out',
      deferred,
      3,
      'deferred',
      { status: 'pending', nextAttemptAt: later(5_000), error: 'Sending limit of the email server reached', refundAttempt: true },
      false,
    ],
    ['a message that could not be built', unsendable, 1, 'failed', { status: 'failed', at, error: 'No email server configured' }, false],
  ] as const)('%s → %s', (_name, outcome, attempts, kind, settlement, handed) => {
    const decision = decideSettlement(outcome, attempts, at, schedule);
    expect(decision.kind).toBe(kind);
    expect(decision.settlement).toEqual(settlement);
    expect(decision.handed).toBe(handed);
  });

  it('says when a delayed recipient is tried again, and keeps the SMTP code of a bounce', () => {
    expect(decideSettlement(soft, 1, at, schedule).nextAttemptAt).toBe(later(60_000).toISOString());
    expect(decideSettlement(hard, 1, at, schedule).code).toBe(550);
  });
});
