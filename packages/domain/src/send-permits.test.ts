import fc from 'fast-check';
import { HOLD_LEASE_MS, PERMIT_HOLD_MS, PermitProfile, withHolds, type HoldsByOwner } from './send-permits';
import { FRESH_SEND_RATE_STATE, reserveSlots, type SendLimits, type SendRateState } from './send-rate';
import { busiestWindow } from '@mailcast/testkit/timing';

const perSecond = (n: number): SendLimits => ({ perSecond: n, perMinute: null, perHour: null, perDay: null });

describe('permits of the per-second limit', () => {
  it('counts an open permit from its slot until the lease, and an answered one until its release', () => {
    const holds: HoldsByOwner = {
      a: { opens: [1_000, 1_300], until: 5_000, releases: [1_200, 1_900] },
      b: { opens: [0], until: 800, releases: [] },
    };
    const profile = new PermitProfile(holds);
    // At 0: b's open one and a's two answered ones; b's lapses at 800, a's open ones come in at
    // 1_000 and 1_300, its answered ones free at 1_200 and 1_900, its open ones lapse at 5_000.
    expect(profile.heldFrom(0)).toBe(3);
    expect(profile.heldFrom(900)).toBe(3); // from 1_000: two answered, one open
    expect(profile.heldFrom(1_250)).toBe(3); // from 1_300: two open, one answered until 1_900
    expect(profile.heldFrom(1_900)).toBe(2);
    expect(profile.heldFrom(6_000)).toBe(0);
    // New permits, held from their slot on, fit where the most held from there on leaves room.
    expect(profile.firstFree(0, 0, 4)).toBe(0);
    expect(profile.firstFree(0, 1, 4)).toBe(1_900);
    expect(profile.firstFree(0, 0, 3)).toBe(1_900);
    expect(profile.firstFree(0, 2, 4)).toBe(5_000);
    expect(new PermitProfile({ a: { opens: [10], until: Infinity, releases: [] } }).firstFree(0, 0, 1)).toBeNull();
  });

  it('writes a holder with a fresh lease and drops what has lapsed of the others', () => {
    const holds: HoldsByOwner = {
      a: { opens: [100], until: 900, releases: [950, 1_500] },
      b: { opens: [], until: 5_000, releases: [10] },
    };
    expect(withHolds(holds, { id: 'me', opens: [1_000, 1_010, 1_020], releases: [999, 2_000] }, 1_000)).toEqual({
      a: { opens: [], until: 900, releases: [1_500] },
      me: { opens: [1_000, 1_010, 1_020], until: 1_000 + HOLD_LEASE_MS, releases: [2_000] },
    });
    expect(withHolds({ me: { opens: [0], until: 1, releases: [] } }, { id: 'me', opens: [], releases: [] }, 1_000)).toEqual({});
  });

  it('grants no slot while another dispatcher holds every permit, and the slot its release frees', () => {
    const state: SendRateState = { ...FRESH_SEND_RATE_STATE, holds: { other: { opens: [0], until: 60_000, releases: [400, 700] } } };
    const blocked = reserveSlots(perSecond(3), state, 0, 1, 1_000, { id: 'me', opens: [], releases: [] });
    expect(blocked).toMatchObject({ slots: [400] });
    const none = reserveSlots(perSecond(3), state, 0, 1, 300, { id: 'me', opens: [], releases: [] });
    expect(none).toMatchObject({ slots: [], nextAt: 400, permitBound: true });
    const own = reserveSlots(perSecond(1), FRESH_SEND_RATE_STATE, 0, 2, 1_000, { id: 'me', opens: [0], releases: [] });
    expect(own).toMatchObject({ slots: [], nextAt: null, permitBound: true });
    expect(blocked.state.holds.me).toEqual({ opens: [400], until: HOLD_LEASE_MS, releases: [] });
  });

  it('holds a permit from its slot, not from when it was reserved: reserving ahead costs no rate', () => {
    // One dispatcher reserves a second ahead; every message is answered 20 ms after its slot.
    const limit = 50;
    let state: SendRateState = FRESH_SEND_RATE_STATE;
    const holder = { id: 'me', opens: [] as number[], releases: [] as number[] };
    const pending: Array<{ slot: number; answer: number }> = [];
    const sent: number[] = [];
    for (let now = 0; now < 20_000; now += 100) {
      for (const m of pending.filter((p) => p.answer <= now)) {
        holder.opens.splice(holder.opens.indexOf(m.slot), 1);
        holder.releases.push(m.answer + PERMIT_HOLD_MS);
      }
      pending.splice(0, pending.length, ...pending.filter((p) => p.answer > now));
      const r = reserveSlots(perSecond(limit), state, now, 64, 1_000, holder);
      state = r.state;
      holder.opens.push(...r.slots);
      for (const slot of r.slots) {
        pending.push({ slot, answer: slot + 20 });
        sent.push(slot);
      }
    }
    // The permits allow L / (1 + 1.021 s − 1 s) = 48.97 per second; counted from the reservation
    // they allowed about L / 2.
    const steady = sent.filter((t) => t >= 5_000 && t < 15_000).length / 10;
    expect(steady).toBeGreaterThan(48);
    expect(busiestWindow(sent, 1_000)).toBeLessThanOrEqual(limit);
  });

  it('keeps every one-second window at the server within the limit, however late messages leave and however long answers take (property)', () => {
    // Two dispatchers reserve batches in turn while their earlier messages are still out; each
    // message leaves up to a second after its slot, is answered up to `slowest` ms later, and
    // the server stamps it anywhere in between. A dispatcher writes its answers with its next
    // reservation, so the other sees them late.
    fc.assert(
      fc.property(
        fc.integer({ min: 1, max: 120 }),
        fc.integer({ min: 0, max: 1_500 }),
        fc.array(
          fc.record({
            first: fc.boolean(),
            step: fc.integer({ min: 0, max: 400 }),
            batch: fc.integer({ min: 1, max: 8 }),
            late: fc.double({ min: 0, max: 1, noNaN: true }),
            answer: fc.double({ min: 0, max: 1, noNaN: true }),
            stamp: fc.double({ min: 0, max: 1, noNaN: true }),
          }),
          { minLength: 20, maxLength: 200 },
        ),
        (limit, slowest, draws) => {
          let state: SendRateState = FRESH_SEND_RATE_STATE;
          type Out = { slot: number; answer: number };
          const dispatchers = {
            a: { opens: [] as number[], releases: [] as number[], out: [] as Out[] },
            b: { opens: [] as number[], releases: [] as number[], out: [] as Out[] },
          };
          const answerUpTo = (now: number) => {
            for (const d of Object.values(dispatchers)) {
              for (const m of d.out.filter((o) => o.answer <= now)) {
                d.opens.splice(d.opens.indexOf(m.slot), 1);
                d.releases.push(m.answer + PERMIT_HOLD_MS);
              }
              d.out = d.out.filter((o) => o.answer > now);
            }
          };
          const stamps: number[] = [];
          let now = 0;
          for (const { first, step, batch, late, answer, stamp } of draws) {
            now += step;
            answerUpTo(now);
            const id = first ? 'a' : 'b';
            const d = dispatchers[id];
            const r = reserveSlots(perSecond(limit), state, now, batch, 1_000, { id, opens: d.opens, releases: d.releases });
            state = r.state;
            d.opens.push(...r.slots);
            r.slots.forEach((slot, i) => {
              // Each message of the batch its own lateness and answer time, drawn from the step's.
              const start = slot + ((late + i * 0.37) % 1) * 1_000;
              const answered = start + ((answer + i * 0.61) % 1) * slowest;
              stamps.push(start + stamp * (answered - start));
              d.out.push({ slot, answer: answered });
            });
          }
          return (
            busiestWindow(
              stamps.sort((x, y) => x - y),
              1_000,
            ) <= limit
          );
        },
      ),
      { numRuns: 300 },
    );
  });
});
