import { conditionHolds, nextDayAt, runAt, stepAfter } from './sequence-runtime';
import { SequenceTree, type StepNode } from './sequence-tree';

const at = new Date('2026-03-28T22:30:00Z');

describe('runAt: when an enrolment arriving at a step may run it', () => {
  it('counts a delay, and a condition’s delay, from the arrival; other steps run at once', () => {
    expect(runAt('delay', { delay: 90 }, at).toISOString()).toBe('2026-03-28T22:31:30.000Z');
    expect(runAt('condition', { delay: 3600, condition_setting: 'any_email_opened' }, at).toISOString()).toBe('2026-03-28T23:30:00.000Z');
    expect(runAt('condition', { condition_setting: 'any_email_opened' }, at)).toEqual(at);
    expect(runAt('send_email', { subject: 'x' }, at)).toEqual(at);
  });

  it('waits for the time on the next day of the time zone’s own date, across a DST change', () => {
    // 22:30Z on the 28th is 23:30 in Berlin (CET): the next day there is the 29th, which starts
    // summer time at 02:00, so 09:00 CEST is 07:00Z.
    expect(nextDayAt(at, '09:00', 'Europe/Berlin').toISOString()).toBe('2026-03-29T07:00:00.000Z');
    // In Tokyo it is already the 29th (07:30 JST): the next day is the 30th.
    expect(nextDayAt(at, '09:00', 'Asia/Tokyo').toISOString()).toBe('2026-03-30T00:00:00.000Z');
    expect(runAt('delay_until_time', { time: '00:15', timezone: 'UTC' }, at).toISOString()).toBe('2026-03-29T00:15:00.000Z');
  });
});

describe('stepAfter: where an enrolment goes next', () => {
  // entry(1) → delay(2) → condition(3) → [true branch(4) → tag(5)] [false branch(6)]
  const nodes: StepNode[] = [
    { id: 1, parentId: null, action: 'entry_point', branch: null },
    { id: 2, parentId: 1, action: 'delay', branch: null },
    { id: 3, parentId: 2, action: 'condition', branch: null },
    { id: 4, parentId: 3, action: 'condition_branch', branch: true },
    { id: 5, parentId: 4, action: 'add_tag_to_subscriber', branch: null },
    { id: 6, parentId: 3, action: 'condition_branch', branch: false },
  ];
  const tree = new SequenceTree(nodes);

  it('follows the one child, and a condition’s branch by its outcome, past the branch itself', () => {
    expect(stepAfter(tree, 1)).toBe(2);
    expect(stepAfter(tree, 2)).toBe(3);
    expect(stepAfter(tree, 3, true)).toBe(5);
    expect(stepAfter(tree, 3, false)).toBeNull();
    expect(stepAfter(tree, 5)).toBeNull();
    expect(stepAfter(tree, 4)).toBe(5);
  });
});

describe('conditionHolds', () => {
  const emails = [
    { opened: true, clicked: false },
    { opened: false, clicked: false },
  ];
  it('reads any email or the previous one; with no email yet it is false', () => {
    expect(conditionHolds('any_email_opened', { emails })).toBe(true);
    expect(conditionHolds('previous_email_opened', { emails })).toBe(false);
    expect(conditionHolds('any_email_clicked', { emails })).toBe(false);
    expect(conditionHolds('any_email_opened', { emails: [] })).toBe(false);
    expect(conditionHolds('previous_email_clicked', { emails: [{ opened: true, clicked: true }] })).toBe(true);
  });
});
