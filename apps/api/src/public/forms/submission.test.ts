import { readSubmission } from './submission';

describe('readSubmission (docs/opt-in-forms.md, "Submitting")', () => {
  it('reads the fields of a form-encoded or JSON body alike', () => {
    expect(
      readSubmission({
        email: 'ada@example.com',
        name: 'Ada King Lovelace',
        custom_data: { company: 'Analytical', seats: 3, vip: true, 'Bad-Key': 'x', nested: { a: 1 } },
        topics: { '7': '1', '8': '0', '9': 'on', '10': true, x: '1' },
        website: '',
        rendered_at: '1764590400000',
        'cf-turnstile-response': 'answer',
      }),
    ).toEqual({
      email: 'ada@example.com',
      firstName: 'Ada',
      lastName: 'King Lovelace',
      customData: { company: 'Analytical', seats: 3, vip: true },
      topics: { '7': true, '8': false, '9': true, '10': true },
      honeypot: '',
      renderedAt: 1764590400000,
      turnstileToken: 'answer',
    });
  });

  it('reads form-encoded bracket keys as the nested fields, topic ids kept', () => {
    expect(readSubmission({ email: 'a@example.com', 'custom_data[plan]': 'pro', 'topics[12]': '1', 'topics[3]': '0' })).toMatchObject({
      customData: { plan: 'pro' },
      topics: { '12': true, '3': false },
    });
  });

  it('keeps given first and last names over name, and reads missing or odd values as absent', () => {
    expect(readSubmission({ first_name: ' Grace ', name: 'Someone Else' })).toMatchObject({ firstName: 'Grace', lastName: null });
    expect(readSubmission({ name: 'Cher' })).toMatchObject({ firstName: 'Cher', lastName: null });
    expect(readSubmission(null)).toEqual({
      email: '',
      firstName: null,
      lastName: null,
      customData: {},
      topics: {},
      honeypot: '',
      renderedAt: null,
      turnstileToken: '',
    });
    expect(readSubmission({ rendered_at: 'soon', email: ['a@example.com', 'b@example.com'] })).toMatchObject({ renderedAt: null, email: 'b@example.com' });
  });
});
