import { recipientTimezone, sendInstantsByTimezone, subscriberSendInstant, timezoneSendWindow } from './subscriber-timezone';

const at = (iso: string) => new Date(iso);

describe('subscriberSendInstant: the schedule’s wall-clock time in each subscriber’s zone', () => {
  // 09:00 in Europe/London on 2026-06-01 (BST, UTC+1) is 08:00Z.
  const scheduled = at('2026-06-01T08:00:00Z');

  test.each([
    ['Europe/London', '2026-06-01T08:00:00.000Z'],
    ['America/New_York', '2026-06-01T13:00:00.000Z'],
    ['Asia/Tokyo', '2026-06-01T00:00:00.000Z'],
    ['Asia/Kolkata', '2026-06-01T03:30:00.000Z'],
    ['Pacific/Kiritimati', '2026-05-31T19:00:00.000Z'],
    ['Etc/GMT+12', '2026-06-01T21:00:00.000Z'],
    ['america/new_york', '2026-06-01T13:00:00.000Z'],
  ])('%s gets %s', (tz, expected) => {
    expect(subscriberSendInstant(scheduled, 'Europe/London', tz).toISOString()).toBe(expected);
  });

  test.each([[undefined], [null], [''], ['Mars/Olympus'], ['+02:00'], [42], [{ tz: 'Europe/Paris' }]])(
    'an absent or invalid zone (%p) takes the broadcast’s scheduled_timezone',
    (tz) => {
      expect(subscriberSendInstant(scheduled, 'Europe/London', tz).toISOString()).toBe('2026-06-01T08:00:00.000Z');
      expect(recipientTimezone(tz, 'Europe/London')).toBe('Europe/London');
    },
  );

  test('a scheduled_timezone other than the subscriber’s: the wall clock is read in the former', () => {
    // 02:30 in America/New_York (EDT, UTC−4) is 06:30Z; 02:30 in Europe/Berlin (CEST) is 00:30Z.
    expect(subscriberSendInstant(at('2026-07-10T06:30:00Z'), 'America/New_York', 'Europe/Berlin').toISOString()).toBe('2026-07-10T00:30:00.000Z');
  });

  describe('daylight-saving changes in the subscriber’s zone', () => {
    test('a wall-clock time in a gap moves forward by the gap (Berlin, 2026-03-29 02:30 → 03:30 CEST)', () => {
      // 02:30 UTC wall clock on 2026-03-29, read in UTC.
      expect(subscriberSendInstant(at('2026-03-29T02:30:00Z'), 'UTC', 'Europe/Berlin').toISOString()).toBe('2026-03-29T01:30:00.000Z');
    });

    test('a wall-clock time in an overlap is its earlier instant (Berlin, 2026-10-25 02:30 CEST)', () => {
      expect(subscriberSendInstant(at('2026-10-25T02:30:00Z'), 'UTC', 'Europe/Berlin').toISOString()).toBe('2026-10-25T00:30:00.000Z');
    });

    test('a day when one zone has changed and another not yet: offsets as each zone has them that day', () => {
      // 2026-03-08: the US springs forward, Europe not until 2026-03-29.
      const nineInUtc = at('2026-03-08T09:00:00Z');
      expect(subscriberSendInstant(nineInUtc, 'UTC', 'America/New_York').toISOString()).toBe('2026-03-08T13:00:00.000Z');
      expect(subscriberSendInstant(nineInUtc, 'UTC', 'Europe/Berlin').toISOString()).toBe('2026-03-08T08:00:00.000Z');
      // The day before, New York was still on EST (UTC−5).
      expect(subscriberSendInstant(at('2026-03-07T09:00:00Z'), 'UTC', 'America/New_York').toISOString()).toBe('2026-03-07T14:00:00.000Z');
    });

    test('the scheduled zone’s own change is read at the scheduled instant (London 01:30 on the day BST begins)', () => {
      // 2026-03-29 01:30 in London does not exist; schedule read forward: 02:30 BST = 01:30Z.
      // That instant shows 02:30 on London's clock, so Tokyo gets 02:30 JST = 2026-03-28T17:30Z.
      expect(subscriberSendInstant(at('2026-03-29T01:30:00Z'), 'Europe/London', 'Asia/Tokyo').toISOString()).toBe('2026-03-28T17:30:00.000Z');
    });
  });
});

describe('timezoneSendWindow', () => {
  test('spans 26 hours, from the wall-clock time at UTC+14 to the same at UTC−12', () => {
    const w = timezoneSendWindow(at('2026-06-01T08:00:00Z'), 'Europe/London');
    expect(w.start.toISOString()).toBe('2026-05-31T19:00:00.000Z');
    expect(w.end.toISOString()).toBe('2026-06-01T21:00:00.000Z');
    expect(w.end.getTime() - w.start.getTime()).toBe(26 * 3_600_000);
  });

  test.each(['Pacific/Kiritimati', 'Etc/GMT+12', 'America/St_Johns', 'Asia/Kathmandu', 'Europe/Berlin', 'Australia/Lord_Howe', 'Pacific/Chatham'])(
    'every zone’s instant falls inside it, on DST days too (%s)',
    (tz) => {
      for (const iso of ['2026-03-08T09:00:00Z', '2026-03-29T01:30:00Z', '2026-04-05T02:15:00Z', '2026-10-25T02:30:00Z', '2026-11-01T01:30:00Z']) {
        const w = timezoneSendWindow(at(iso), 'UTC');
        const instant = subscriberSendInstant(at(iso), 'UTC', tz).getTime();
        expect(instant).toBeGreaterThanOrEqual(w.start.getTime());
        expect(instant).toBeLessThanOrEqual(w.end.getTime());
      }
    },
  );
});

describe('sendInstantsByTimezone', () => {
  test('maps each valid zone as spelled; invalid ones are left to the fallback', () => {
    const { byTimezone, fallback } = sendInstantsByTimezone(at('2026-06-01T08:00:00Z'), 'Europe/London', ['Asia/Tokyo', 'nowhere', ' Asia/Tokyo ']);
    expect(fallback.toISOString()).toBe('2026-06-01T08:00:00.000Z');
    expect([...byTimezone.entries()].map(([k, v]) => [k, v.toISOString()])).toEqual([
      ['Asia/Tokyo', '2026-06-01T00:00:00.000Z'],
      [' Asia/Tokyo ', '2026-06-01T00:00:00.000Z'],
    ]);
  });
});
