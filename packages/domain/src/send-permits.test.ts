import fc from 'fast-check';
import { HOLD_LEASE_MS, PERMIT_HOLD_MS, nextPermitFree, permitsHeld, withHolds, type HoldsByOwner } from './send-permits';
import { FRESH_SEND_RATE_STATE, reserveSlots, type SendLimits, type SendRateState } from './send-rate';
import { busiestWindow } from '@mailcast/testkit/timing';

const perSecond = (n: number): SendLimits => ({ perSecond: n, perMinute: null, perHour: null, perDay: null });


describe('permits of the per-second limit', () => {
  it('counts open permits until the lease and answered ones until their release', () => {
    const holds: HoldsByOwner = { a: { open: 2, until: 5_000, releases: [1_200, 1_900] }, b: { open: 1, until: 800, releases: [] } };
    expect(permitsHeld(holds, 0)).toBe(5);
    expect(permitsHeld(holds, 1_000)).toBe(4);
    expect(permitsHeld(holds, 1_500)).toBe(3);
    expect(permitsHeld(holds, 6_000)).toBe(0);
    expect(nextPermitFree(holds, 1_000)).toBe(1_200);
    expect(nextPermitFree(holds, 2_000)).toBeNull();
  });

  it('writes a holder with a fresh lease and drops what has lapsed of the others', () => {
    const holds: HoldsByOwner = { a: { open: 1, until: 900, releases: [950, 1_500] }, b: { open: 0, until: 5_000, releases: [10] } };
    expect(withHolds(holds, { id: 'me', open: 3, releases: [999, 2_000] }, 1_000)).toEqual({
      a: { open: 0, until: 900, releases: [1_500] },
      me: { open: 3, until: 1_000 + HOLD_LEASE_MS, releases: [2_000] },
    });
    expect(withHolds({ me: { open: 1, until: 1, releases: [] } }, { id: 'me', open: 0, releases: [] }, 1_000)).toEqual({});
  });

  it('grants no slot while another dispatcher holds every permit, and the slot its release frees', () => {
    const state: SendRateState = { ...FRESH_SEND_RATE_STATE, holds: { other: { open: 1, until: 60_000, releases: [400, 700] } } };
    const blocked = reserveSlots(perSecond(3), state, 0, 1, 1_000, { id: 'me', open: 0, releases: [] });
    expect(blocked).toMatchObject({ slots: [400] });
    const none = reserveSlots(perSecond(3), state, 0, 1, 300, { id: 'me', open: 0, releases: [] });
    expect(none).toMatchObject({ slots: [], nextAt: 400, permitBound: false });
    const own = reserveSlots(perSecond(1), FRESH_SEND_RATE_STATE, 0, 2, 1_000, { id: 'me', open: 1, releases: [] });
    expect(own).toMatchObject({ slots: [], nextAt: null, permitBound: true });
    expect(blocked.state.holds.me).toEqual({ open: 1, until: HOLD_LEASE_MS, releases: [] });
  });

  it('keeps every one-second window at the server within the limit, however late messages leave and however long answers take (property)', () => {
    // Two dispatchers take slots in turn; each message leaves up to a second after its slot, is
    // answered up to `slowest` ms later, and the server stamps it anywhere in between.
    fc.assert(
      fc.property(
        fc.integer({ min: 1, max: 120 }),
        fc.integer({ min: 0, max: 1_500 }),
        fc.array(fc.tuple(fc.boolean(), fc.double({ min: 0, max: 1, noNaN: true }), fc.double({ min: 0, max: 1, noNaN: true }), fc.double({ min: 0, max: 1, noNaN: true })), {
          minLength: 20,
          maxLength: 300,
        }),
        (limit, slowest, draws) => {
          let state: SendRateState = FRESH_SEND_RATE_STATE;
          const mine = { a: { open: 0, releases: [] as number[] }, b: { open: 0, releases: [] as number[] } };
          const stamps: number[] = [];
          let now = 0;
          for (const [first, late, answer, stamp] of draws) {
            const id = first ? 'a' : 'b';
            const r = reserveSlots(perSecond(limit), state, now, 1, 1_000, { id, ...mine[id] });
            state = r.state;
            const slot = r.slots[0];
            if (slot === undefined) {
              now = r.nextAt ?? now + 100;
              continue;
            }
            const start = slot + late * 1_000;
            const answered = start + answer * slowest;
            stamps.push(start + stamp * (answered - start));
            mine[id].releases.push(answered + PERMIT_HOLD_MS);
            now = slot;
          }
          return busiestWindow(stamps.sort((x, y) => x - y), 1_000) <= limit;
        },
      ),
      { numRuns: 300 },
    );
  });
});
