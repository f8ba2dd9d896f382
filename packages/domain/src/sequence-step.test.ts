import { decideEnrol, pauseTransition } from './sequence';
import { parseStepSettings, type StepAction } from './sequence-step';

describe('step settings', () => {
  test.each<[StepAction, Record<string, unknown>, object]>([
    ['send_email', { subject: 'Hi' }, { subject: 'Hi', preheader: null, body: null, html_body: null, template_id: null }],
    ['send_email', { template_id: 4 }, { subject: null, preheader: null, body: null, html_body: null, template_id: 4 }],
    ['delay', { delay: 1 }, { delay: 1 }],
    ['delay', { delay: 31_536_000 }, { delay: 31_536_000 }],
    ['delay_until_time', { time: '09:30' }, { time: '09:30', timezone: 'UTC' }],
    ['delay_until_time', { time: '23:59', timezone: 'Europe/Berlin' }, { time: '23:59', timezone: 'Europe/Berlin' }],
    ['condition', { condition_setting: 'any_email_opened' }, { condition_setting: 'any_email_opened', delay: 0 }],
    ['move_to_sequence', { target_sequence_id: 3 }, { target_sequence_id: 3 }],
    ['add_tag_to_subscriber', { tags: ['a', ' b ', 'a'] }, { tags: ['a', 'b'] }],
    ['remove_tag_from_subscriber', { taggify_list: 'a,b' }, { tags: ['a', 'b'] }],
    ['deactivate_subscriber', { subject: 'ignored' }, {}],
    ['make_http_request', { url: 'https://example.com/x', http_method: 'put' }, { http_method: 'PUT', url: 'https://example.com/x', headers: {}, body: null }],
    ['make_http_request', { url: 'https://example.com/x' }, { http_method: 'POST', url: 'https://example.com/x', headers: {}, body: null }],
  ])('%s %j', (action, given, expected) => {
    expect(parseStepSettings(action, given)).toEqual({ settings: expected });
  });

  test.each<[StepAction, Record<string, unknown>, string]>([
    ['send_email', {}, 'subject'],
    ['send_email', { subject: '  ' }, 'subject'],
    ['delay', { delay: 0 }, 'delay'],
    ['delay', { delay: 31_536_001 }, 'delay'],
    ['delay', { delay: 1.5 }, 'delay'],
    ['delay', { delay: '60' }, 'delay'],
    ['delay_until_time', { time: '24:00' }, 'time'],
    ['delay_until_time', { time: '9:30' }, 'time'],
    ['delay_until_time', { time: '09:30', timezone: 'Mars/Base' }, 'timezone'],
    ['delay_until_time', { time: '09:30', timezone: '+01:00' }, 'timezone'],
    ['condition', { condition_setting: 'opened' }, 'condition_setting'],
    ['condition', { condition_setting: 'any_email_opened', delay: -1 }, 'delay'],
    ['move_to_sequence', {}, 'target_sequence_id'],
    ['add_tag_to_subscriber', { tags: [] }, 'tags'],
    ['add_tag_to_subscriber', { tags: [1] }, 'tags'],
    ['make_http_request', { url: 'https://x', http_method: 'TRACE' }, 'http_method'],
    ['make_http_request', {}, 'url'],
    ['make_http_request', { url: 'https://x', headers: { a: 1 } }, 'headers'],
  ])('%s %j is refused naming %s', (action, given, field) => {
    const result = parseStepSettings(action, given);
    expect(Object.keys('errors' in result ? result.errors : {})).toEqual([field]);
  });

  test('an update keeps the stored fields it does not name', () => {
    expect(parseStepSettings('send_email', { body: 'new' }, { subject: 'Kept', body: 'old' })).toEqual({
      settings: { subject: 'Kept', preheader: null, body: 'new', html_body: null, template_id: null },
    });
  });
});

describe('enrolments', () => {
  test.each([
    [null, false, 'create'],
    ['active', false, 'already_enrolled'],
    ['paused', true, 'already_enrolled'],
    ['busy', false, 'already_enrolled'],
    ['completed', false, 'refuse'],
    ['removed', false, 'refuse'],
    ['error', false, 'refuse'],
    ['completed', true, 'restart'],
    ['removed', true, 'restart'],
  ] as const)('an add_subscriber on %s (restart %s): %s', (status, restart, expected) => {
    expect(decideEnrol(status, restart)).toBe(expected);
  });

  test('pausing and resuming a sequence', () => {
    expect(pauseTransition(false)).toEqual({ from: 'active', to: 'paused', event: 'sequence.subscriber_paused' });
    expect(pauseTransition(true)).toEqual({ from: 'paused', to: 'active', event: 'sequence.subscriber_resumed' });
  });
});
