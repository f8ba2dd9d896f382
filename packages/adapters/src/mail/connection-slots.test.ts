import { MessageWithdrawn } from '@mailcast/core';
import { ConnectionSlots } from './connection-slots';

describe('ConnectionSlots: messages wait for a free connection, where they can be withdrawn', () => {
  /** Whether the promise has settled, after letting pending callbacks run. */
  const state = async (p: Promise<void>) => {
    let result = 'waiting';
    void p.then(
      () => (result = 'started'),
      (e: unknown) => (result = e instanceof MessageWithdrawn ? 'withdrawn' : 'failed'),
    );
    for (let i = 0; i < 3; i++) await Promise.resolve();
    return result;
  };

  it('starts at most `size` at once, the next in order as each slot is given back', async () => {
    const slots = new ConnectionSlots(2);
    const [a, b, c, d] = [slots.take(), slots.take(), slots.take(), slots.take()];
    expect([await state(a), await state(b), await state(c), await state(d)]).toEqual(['started', 'started', 'waiting', 'waiting']);
    slots.give();
    expect([await state(c), await state(d)]).toEqual(['started', 'waiting']);
  });

  it('withdraws a waiting message when its signal aborts, and it never takes a slot', async () => {
    const slots = new ConnectionSlots(1);
    const withdrawal = new AbortController();
    const first = slots.take(withdrawal.signal);
    const second = slots.take(withdrawal.signal);
    const third = slots.take();
    withdrawal.abort();
    expect([await state(first), await state(second), await state(third)]).toEqual(['started', 'withdrawn', 'waiting']);
    slots.give();
    expect(await state(third)).toBe('started');
  });

  it('refuses a message whose signal already aborted, even with a slot free', async () => {
    const withdrawal = new AbortController();
    withdrawal.abort();
    const slots = new ConnectionSlots(1);
    expect(await state(slots.take(withdrawal.signal))).toBe('withdrawn');
    expect(await state(slots.take())).toBe('started');
  });
});
