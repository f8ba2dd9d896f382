import { LeaseHold } from './lease-hold';

describe('LeaseHold: how long a job can prove its claims are its own', () => {
  let now = 0;
  const lease = () => new LeaseHold(() => now, 60_000);
  beforeEach(() => (now = 1_000));

  it('holds before anything is claimed', () => {
    expect(lease().holds()).toBe(true);
  });

  it('counts from the moment the first claim was sent, with a third of a lease to spare for a new message', () => {
    const l = lease();
    l.claimed(1_000);
    now = 1_000 + 39_999;
    expect(l.holds()).toBe(true);
    now = 1_000 + 40_000;
    expect(l.holds()).toBe(false);
    expect(l.proven()).toBe(true);
    now = 1_000 + 60_000;
    expect(l.proven()).toBe(false);
  });

  it('moves on with each committed heartbeat, from when it was sent, never backwards', () => {
    const l = lease();
    l.claimed(1_000);
    l.confirm(20_000);
    l.confirm(10_000);
    now = 20_000 + 39_999;
    expect(l.holds()).toBe(true);
    now = 20_000 + 40_000;
    expect(l.holds()).toBe(false);
  });

  it('a later claim does not date the oldest lease', () => {
    const l = lease();
    l.claimed(1_000);
    l.claimed(30_000);
    now = 41_000;
    expect(l.holds()).toBe(false);
  });

  it('tells whether the database answered a heartbeat since a moment', () => {
    const l = lease();
    l.claimed(1_000);
    expect(l.answeredSince(5_000)).toBe(false);
    l.confirm(6_000);
    expect(l.answeredSince(5_000)).toBe(true);
    expect(l.answeredSince(7_000)).toBe(false);
  });

  it('beats several times per lease, at most every 5 s', () => {
    expect(LeaseHold.heartbeatMs(60_000)).toBe(5_000);
    expect(LeaseHold.heartbeatMs(1_500)).toBe(250);
    expect(LeaseHold.heartbeatMs(100)).toBe(50);
  });
});
