import { evaluateCondition, httpStepVerdict, nextDayAt, nextStep, stepDueAt, type EngagementFacts, type RuntimeStep } from './sequence-runtime';
import { sequenceTokenIds, sequenceUnsubscribeToken, verifySequenceUnsubscribeToken } from './tracking-token';

const step = (
  id: number,
  action: RuntimeStep['action'],
  parentId: number | null,
  settings: RuntimeStep['settings'] = {},
  branch: boolean | null = null,
): RuntimeStep => ({
  id,
  action,
  parentId,
  branch,
  settings,
});

describe('stepDueAt', () => {
  const at = new Date('2026-03-10T10:00:00Z');
  test.each([
    ['delay', { delay: 90 }, '2026-03-10T10:01:30.000Z'],
    ['condition', { delay: 3600, condition_setting: 'any_email_opened' as const }, '2026-03-10T11:00:00.000Z'],
    ['condition', { condition_setting: 'any_email_opened' as const }, '2026-03-10T10:00:00.000Z'],
    ['send_email', { subject: 'x' }, '2026-03-10T10:00:00.000Z'],
    ['delay_until_time', { time: '09:30', timezone: 'UTC' }, '2026-03-11T09:30:00.000Z'],
  ] as const)('%s %j', (action, settings, expected) => {
    expect(stepDueAt(step(1, action, 0, settings), at).toISOString()).toBe(expected);
  });
});

describe('nextDayAt', () => {
  test.each([
    // Already past 09:00 there: tomorrow's 09:00 New York (EDT, UTC-4).
    ['09:00', 'America/New_York', '2026-06-01T20:00:00Z', '2026-06-02T13:00:00.000Z'],
    // 23:30 UTC is already the 2nd in Tokyo (UTC+9): the day after is the 3rd.
    ['08:00', 'Asia/Tokyo', '2026-06-01T23:30:00Z', '2026-06-02T23:00:00.000Z'],
    // Across the start of summer time in Berlin (29 March 2026): 10:00 CEST is 08:00Z.
    ['10:00', 'Europe/Berlin', '2026-03-28T12:00:00Z', '2026-03-29T08:00:00.000Z'],
    // A wall time in the gap moves forward by the gap (as scheduled broadcasts do).
    ['02:30', 'Europe/Berlin', '2026-03-28T12:00:00Z', '2026-03-29T01:30:00.000Z'],
  ])('%s in %s after %s', (time, zone, arrived, expected) => {
    expect(nextDayAt(time, zone, new Date(arrived)).toISOString()).toBe(expected);
  });
});

describe('nextStep', () => {
  // entry(1) → email(2) → condition(3) [true(4) → delay(6)] [false(5) → tag(7) → end]
  const tree = [
    step(1, 'entry_point', null),
    step(2, 'send_email', 1),
    step(3, 'condition', 2, { condition_setting: 'any_email_opened' }),
    step(4, 'condition_branch', 3, {}, true),
    step(5, 'condition_branch', 3, {}, false),
    step(6, 'delay', 4, { delay: 5 }),
    step(7, 'add_tag_to_subscriber', 5, { tags: ['x'] }),
  ];
  test('a plain step goes to its child', () => expect(nextStep(tree, 1)?.id).toBe(2));
  test('a condition goes to the child of the branch it decided', () => {
    expect(nextStep(tree, 3, true)?.id).toBe(6);
    expect(nextStep(tree, 3, false)?.id).toBe(7);
  });
  test('the end of a path is null', () => {
    expect(nextStep(tree, 6)).toBeNull();
    expect(nextStep(tree, 7)).toBeNull();
  });
  test('an empty branch ends the path', () => {
    expect(
      nextStep(
        tree.filter((s) => s.id !== 7),
        3,
        false,
      ),
    ).toBeNull();
  });
  test('an unknown step ends the path', () => expect(nextStep(tree, 99)).toBeNull());
});

describe('evaluateCondition', () => {
  const none: EngagementFacts = { emails: 0, anyOpened: false, anyClicked: false, previousOpened: false, previousClicked: false };
  const openedEarlier: EngagementFacts = { emails: 2, anyOpened: true, anyClicked: true, previousOpened: false, previousClicked: false };
  test.each([
    ['any_email_opened', none, false],
    ['previous_email_clicked', none, false],
    ['any_email_opened', openedEarlier, true],
    ['any_email_clicked', openedEarlier, true],
    ['previous_email_opened', openedEarlier, false],
    ['previous_email_clicked', { ...openedEarlier, previousClicked: true }, true],
  ] as const)('%s with %j is %s', (setting, facts, expected) => {
    expect(evaluateCondition(setting, facts)).toBe(expected);
  });
});

describe('httpStepVerdict', () => {
  test.each([
    [{ status: 200 }, 1, { kind: 'done' }],
    [{ status: 302 }, 1, { kind: 'done' }],
    [{ status: 404 }, 1, { kind: 'error', error: 'HTTP 404' }],
    [{ status: 503 }, 1, { kind: 'retry', afterMs: 60_000 }],
    [{ status: 503 }, 2, { kind: 'retry', afterMs: 300_000 }],
    [{ failure: 'timeout', message: 'x' }, 3, { kind: 'retry', afterMs: 1_800_000 }],
    [{ status: 500 }, 4, { kind: 'error', error: 'HTTP 500 after 4 attempts' }],
    [{ failure: 'network', message: 'ECONNREFUSED' }, 4, { kind: 'error', error: 'Network error: ECONNREFUSED after 4 attempts' }],
    [{ failure: 'refused_destination', message: 'private address' }, 1, { kind: 'error', error: 'Refused destination: private address' }],
  ] as const)('%j on attempt %i', (result, attempt, expected) => {
    expect(httpStepVerdict(result, attempt)).toEqual(expected);
  });
});

describe('sequence unsubscribe token', () => {
  const secret = new Uint8Array(32).fill(7);
  test('names its enrolment and step and verifies only under its secret', () => {
    const token = sequenceUnsubscribeToken(secret, 12, 34);
    expect(sequenceTokenIds(token)).toEqual({ enrolmentId: 12, stepId: 34 });
    expect(verifySequenceUnsubscribeToken(secret, token)).toBe(true);
    expect(verifySequenceUnsubscribeToken(new Uint8Array(32), token)).toBe(false);
    expect(verifySequenceUnsubscribeToken(secret, token.replace('q12.34', 'q12.35'))).toBe(false);
    expect(sequenceTokenIds('12-abc')).toBeNull();
  });
});
