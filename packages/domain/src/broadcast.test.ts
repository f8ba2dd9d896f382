import {
  BROADCAST_STATUSES,
  BROADCAST_TRANSITIONS,
  type BroadcastStatus,
  assertCanDelete,
  assertCanSchedule,
  assertCanUpdate,
  canTransition,
  finalStatus,
  isValidTimezone,
  percentageComplete,
  planAbort,
  planCancelSchedule,
  planPause,
  planResume,
  planSchedule,
  planSend,
  resolveScheduledSendAt,
} from './broadcast';
import { errorOf } from './test-support/catch-domain-error';

const ALL = BROADCAST_STATUSES;

describe('broadcast statuses', () => {
  test('are the ten statuses of the spec', () => {
    expect([...BROADCAST_STATUSES]).toEqual([
      'draft',
      'future_scheduled',
      'scheduled',
      'queueing',
      'sending',
      'sent',
      'failed',
      'partial_failure',
      'aborted',
      'paused',
    ]);
  });
});

describe('transition table', () => {
  // Written out by hand from the spec and docs/broadcasts-and-sending.md, independently of BROADCAST_TRANSITIONS.
  const allowed = new Set([
    'draft>scheduled',
    'failed>scheduled',
    'draft>future_scheduled',
    'future_scheduled>future_scheduled',
    'future_scheduled>draft',
    'future_scheduled>scheduled',
    'scheduled>queueing',
    'queueing>sending',
    'sending>sent',
    'sending>partial_failure',
    'sending>failed',
    'scheduled>paused',
    'queueing>paused',
    'sending>paused',
    'paused>scheduled',
    'paused>queueing',
    'paused>sending',
    'future_scheduled>aborted',
    'scheduled>aborted',
    'queueing>aborted',
    'sending>aborted',
    'paused>aborted',
  ]);
  const pairs = ALL.flatMap((from) => ALL.map((to) => [from, to, allowed.has(`${from}>${to}`)] as const));

  test.each(pairs)('%s → %s allowed: %s', (from, to, expected) => {
    expect(canTransition(from, to)).toBe(expected);
  });

  test('lists each move once, with the trigger that causes it', () => {
    expect(BROADCAST_TRANSITIONS).toHaveLength(allowed.size);
    expect(BROADCAST_TRANSITIONS.filter((t) => t.trigger === 'finish').map((t) => t.to)).toEqual(['sent', 'partial_failure', 'failed']);
    expect(BROADCAST_TRANSITIONS.find((t) => t.from === 'future_scheduled' && t.to === 'scheduled')?.trigger).toBe('due');
  });

  test.each(['sent', 'partial_failure', 'aborted'] as const)('%s is terminal', (status) => {
    expect(BROADCAST_TRANSITIONS.filter((t) => t.from === status)).toEqual([]);
  });
});

describe('update and delete guards', () => {
  test.each(ALL.map((s) => [s, s === 'draft' || s === 'future_scheduled'] as const))('%s editable: %s', (status, editable) => {
    if (editable) {
      expect(() => assertCanUpdate(status)).not.toThrow();
      expect(() => assertCanDelete(status)).not.toThrow();
    } else {
      expect(errorOf(() => assertCanUpdate(status))).toEqual({
        name: 'DomainError',
        code: 'broadcast_not_updatable',
        message: 'Broadcast cannot be updated in current status',
      });
      expect(errorOf(() => assertCanDelete(status))).toEqual({
        name: 'DomainError',
        code: 'broadcast_not_deletable',
        message: 'Broadcast cannot be deleted in current status',
      });
    }
  });
});

describe('planSend', () => {
  const ready = { status: 'draft' as BroadcastStatus, subject: 'Hello', body: 'Body', emailServerCount: 1 };
  const notSendable = {
    name: 'DomainError',
    code: 'broadcast_not_sendable_status',
    message: 'Broadcast can only be sent from draft or failed status',
  };
  const notReady = { name: 'DomainError', code: 'broadcast_not_ready', message: 'Broadcast is not ready to send' };
  const noSmtp = {
    name: 'DomainError',
    code: 'smtp_not_configured',
    message: 'SMTP settings are not configured, please check your settings',
  };

  test.each(ALL.map((s) => [s, s === 'draft' || s === 'failed'] as const))('from %s sendable: %s', (status, ok) => {
    if (ok) expect(planSend({ ...ready, status })).toBe('scheduled');
    else expect(errorOf(() => planSend({ ...ready, status }))).toEqual(notSendable);
  });

  test.each([
    ['subject null', { subject: null }],
    ['subject blank', { subject: '   ' }],
    ['body null, no html', { body: null }],
    ['body blank, html blank', { body: ' \n', htmlBody: '  ' }],
    ['body empty, html null', { body: '', htmlBody: null }],
  ])('%s: not ready', (_label, patch) => {
    expect(errorOf(() => planSend({ ...ready, ...patch }))).toEqual(notReady);
  });

  test('an HTML body alone is a body', () => {
    expect(planSend({ ...ready, body: null, htmlBody: '<p>Hi</p>' })).toBe('scheduled');
  });

  test('no email server: SMTP not configured', () => {
    expect(errorOf(() => planSend({ ...ready, emailServerCount: 0 }))).toEqual(noSmtp);
  });

  test("checks in the spec's order: status, then email server, then subject and body", () => {
    const everythingWrong = { status: 'sent' as const, subject: null, body: null, emailServerCount: 0 };
    expect(errorOf(() => planSend(everythingWrong))).toEqual(notSendable);
    expect(errorOf(() => planSend({ ...everythingWrong, status: 'failed' }))).toEqual(noSmtp);
    expect(errorOf(() => planSend({ ...everythingWrong, status: 'failed', emailServerCount: 1 }))).toEqual(notReady);
  });
});

describe('planSchedule', () => {
  const now = new Date('2026-01-10T12:00:00.000Z');
  const later = new Date('2026-01-10T12:00:00.001Z');

  test.each(ALL.map((s) => [s, s === 'draft' || s === 'future_scheduled'] as const))('from %s schedulable: %s', (status, ok) => {
    if (ok) expect(planSchedule({ status, scheduledSendAt: later, now })).toBe('future_scheduled');
    else
      expect(errorOf(() => planSchedule({ status, scheduledSendAt: later, now }))).toEqual({
        name: 'DomainError',
        code: 'broadcast_not_schedulable',
        message: 'Broadcast cannot be scheduled in current status',
      });
  });

  test.each([
    ['equal to now', now],
    ['one millisecond before now', new Date(now.getTime() - 1)],
    ['a year ago', new Date('2025-01-10T12:00:00Z')],
  ])('a time %s is refused', (_label, scheduledSendAt) => {
    expect(errorOf(() => planSchedule({ status: 'draft', scheduledSendAt, now }))).toEqual({
      name: 'DomainError',
      code: 'scheduled_time_not_future',
      message: 'Scheduled send time must be in the future',
    });
  });

  test.each(ALL.map((s) => [s, s === 'draft' || s === 'future_scheduled'] as const))('assertCanSchedule(%s) passes: %s', (status, ok) => {
    if (ok) expect(() => assertCanSchedule(status)).not.toThrow();
    else expect(errorOf(() => assertCanSchedule(status)).code).toBe('broadcast_not_schedulable');
  });

  test('an invalid Date is an invalid time, not a past one', () => {
    expect(errorOf(() => planSchedule({ status: 'draft', scheduledSendAt: new Date(NaN), now })).code).toBe('invalid_scheduled_time');
  });
});

describe('cancel, pause, resume, abort', () => {
  const cases: Array<[string, (s: BroadcastStatus) => string, readonly BroadcastStatus[], string, string, string]> = [
    ['cancel', planCancelSchedule, ['future_scheduled'], 'draft', 'broadcast_not_scheduled', 'Broadcast is not scheduled'],
    ['pause', planPause, ['scheduled', 'queueing', 'sending'], 'paused', 'broadcast_not_pausable', 'Broadcast cannot be paused in current status'],
    ['resume', planResume, ['paused'], 'sending', 'broadcast_not_resumable', 'Broadcast cannot be resumed in current status'],
    [
      'abort',
      planAbort,
      ['future_scheduled', 'scheduled', 'queueing', 'sending', 'paused'],
      'aborted',
      'broadcast_not_abortable',
      'Broadcast cannot be aborted in current status',
    ],
  ];
  const rows = cases.flatMap(([verb, plan, from, to, code, message]) =>
    ALL.map((status) => [verb, status, from.includes(status), plan, to, code, message] as const),
  );

  test.each(rows)('%s from %s allowed: %s', (_verb, status, ok, plan, to, code, message) => {
    if (ok) {
      expect(plan(status)).toBe(to);
      expect(canTransition(status, to as BroadcastStatus)).toBe(true);
    } else {
      expect(errorOf(() => plan(status))).toEqual({ name: 'DomainError', code, message });
    }
  });
});

describe('planResume returns to the stage paused in', () => {
  test.each([
    ['scheduled', 'scheduled'],
    ['queueing', 'queueing'],
    ['sending', 'sending'],
    [null, 'sending'],
    [undefined, 'sending'],
    ['draft', 'sending'],
  ] as const)('paused from %s resumes to %s', (pausedFrom, to) => {
    expect(planResume('paused', pausedFrom)).toBe(to);
    expect(canTransition('paused', to)).toBe(true);
  });

  test('a broadcast that is not paused cannot resume, whatever it was paused from', () => {
    expect(errorOf(() => planResume('sending', 'queueing')).code).toBe('broadcast_not_resumable');
  });
});

describe('finalStatus (docs/broadcasts-and-sending.md: sent / partial_failure / failed)', () => {
  test.each([
    [0, 0, 'sent'],
    [10, 0, 'sent'],
    [9, 1, 'partial_failure'],
    [1, 99, 'partial_failure'],
    [0, 1, 'failed'],
    [0, 10, 'failed'],
  ] as const)('accepted %i, failed %i → %s', (accepted, failed, expected) => {
    expect(finalStatus({ accepted, failed })).toBe(expected);
  });
});

describe('percentageComplete', () => {
  test.each([
    [0, 0, 0],
    [5, 0, 0],
    [0, 3, 0],
    [1, 3, 33.33],
    [2, 3, 66.67],
    [1, 8, 12.5],
    [3, 3, 100],
    [4, 3, 100],
    [-1, 3, 0],
    [1, 200_000, 0],
    [1, 20_000, 0.01],
  ])('%i of %i → %d', (processed, total, expected) => {
    expect(percentageComplete(processed, total)).toBe(expected);
  });
});

describe('isValidTimezone', () => {
  test.each([
    ['Europe/Berlin', true],
    ['America/New_York', true],
    ['UTC', true],
    ['europe/berlin', true],
    ['Etc/GMT+5', true],
    ['Mars/Olympus_Mons', false],
    ['', false],
    ['  ', false],
    ['+01:00', false],
    ['-05:00', false],
  ])('%j → %s', (tz, expected) => {
    expect(isValidTimezone(tz)).toBe(expected);
  });
});

describe('resolveScheduledSendAt', () => {
  test.each([
    // Offsets and Z name an absolute instant whatever the zone.
    ['2026-06-01T10:00:00Z', 'Asia/Tokyo', '2026-06-01T10:00:00.000Z'],
    ['2026-06-01T10:00:00+02:00', 'Asia/Tokyo', '2026-06-01T08:00:00.000Z'],
    ['2026-06-01T10:00:00-0530', 'UTC', '2026-06-01T15:30:00.000Z'],
    ['2026-06-01T10:00:00+01', 'UTC', '2026-06-01T09:00:00.000Z'],
    ['2026-06-01T10:00:00.250Z', 'UTC', '2026-06-01T10:00:00.250Z'],
    ['2026-06-01 10:00z', 'UTC', '2026-06-01T10:00:00.000Z'],
    // Wall-clock time in the zone: CET (+1) in winter, CEST (+2) in summer.
    ['2026-01-15T09:00:00', 'Europe/Berlin', '2026-01-15T08:00:00.000Z'],
    ['2026-07-15T09:00:00', 'Europe/Berlin', '2026-07-15T07:00:00.000Z'],
    ['2026-07-01T09:00:00', 'America/New_York', '2026-07-01T13:00:00.000Z'],
    ['2026-01-15T09:00', 'Asia/Kolkata', '2026-01-15T03:30:00.000Z'],
    ['2026-01-15', 'Europe/Berlin', '2026-01-14T23:00:00.000Z'],
    ['2026-01-15T09:00:00.123456', 'UTC', '2026-01-15T09:00:00.123Z'],
    // DST gap: 02:30 does not exist on 2026-03-29 in Berlin; it moves forward by the gap → 03:30 CEST.
    ['2026-03-29T02:30:00', 'Europe/Berlin', '2026-03-29T01:30:00.000Z'],
    ['2026-03-29T03:00:00', 'Europe/Berlin', '2026-03-29T01:00:00.000Z'],
    ['2026-03-29T01:59:59', 'Europe/Berlin', '2026-03-29T00:59:59.000Z'],
    ['2026-03-08T02:30:00', 'America/New_York', '2026-03-08T07:30:00.000Z'],
    // DST overlap: 02:30 on 2026-10-25 happens twice in Berlin; the earlier (CEST) wins.
    ['2026-10-25T02:30:00', 'Europe/Berlin', '2026-10-25T00:30:00.000Z'],
    ['2026-10-25T03:00:00', 'Europe/Berlin', '2026-10-25T02:00:00.000Z'],
    ['2026-11-01T01:30:00', 'America/New_York', '2026-11-01T05:30:00.000Z'],
    // Half-hour DST (Lord Howe): 02:15 falls in the 30-minute gap → 02:45 (+11).
    ['2026-10-04T02:15', 'Australia/Lord_Howe', '2026-10-03T15:45:00.000Z'],
    // Samoa skipped 2011-12-30 entirely: noon that day moves forward 24 h.
    ['2011-12-30T12:00', 'Pacific/Apia', '2011-12-30T22:00:00.000Z'],
    ['2024-02-29T12:00', 'UTC', '2024-02-29T12:00:00.000Z'],
  ])('%s in %s → %s', (input, tz, expected) => {
    expect(resolveScheduledSendAt(input, tz).toISOString()).toBe(expected);
  });

  test('an unknown zone is refused even when the time carries an offset', () => {
    expect(errorOf(() => resolveScheduledSendAt('2026-06-01T10:00:00Z', 'Nowhere/City'))).toEqual({
      name: 'DomainError',
      code: 'invalid_timezone',
      message: 'Scheduled timezone is invalid',
    });
  });

  test.each([
    'tomorrow',
    '',
    '2026-13-01T10:00:00',
    '2026-02-29T10:00:00',
    '2026-04-31T10:00:00',
    '2026-01-01T24:00:00',
    '2026-01-01T10:60:00',
    '2026-01-01T10:00:60',
    '2026-01-01T10:00:00+24:00',
    '2026-01-01T10:00:00+01:60',
    '2026-01-01Z',
    '26-01-01T10:00:00',
    '2026-01-01T10',
    '1767261600',
  ])('%j is an invalid time', (input) => {
    expect(errorOf(() => resolveScheduledSendAt(input, 'UTC'))).toEqual({
      name: 'DomainError',
      code: 'invalid_scheduled_time',
      message: 'Scheduled send time is invalid',
    });
  });
});
