import { checkImportHeader, parseImportRecord } from './import-subscribers';

describe('parseImportRecord', () => {
  const parse = (cells: Record<string, string>) => parseImportRecord({ line: 2, cells });

  it('maps known columns, splits tags and puts every other column into custom_data', () => {
    expect(
      parse({ ' EMAIL ': ' A@Example.com ', first_name: ' Ada ', last_name: '', tags: 'a; b|c,a', plan: 'pro', 'custom_data.city': 'Oslo', empty: ' ' }),
    ).toEqual({
      email: 'a@example.com',
      firstName: 'Ada',
      lastName: null,
      ipAddress: null,
      subscribedAt: null,
      tags: ['a', 'b', 'c'],
      customData: { plan: 'pro', city: 'Oslo' },
    });
  });

  it('types cells as the list filter reads them and merges a custom_data JSON object', () => {
    const parsed = parse({ email: 'a@example.com', score: '7', active: 'true', zip: '007', ratio: '0.5', custom_data: '{"plan":{"tier":"pro"},"score":1}' });
    expect('refused' in parsed ? parsed : parsed.customData).toEqual({ plan: { tier: 'pro' }, score: 7, active: true, zip: '007', ratio: 0.5 });
  });

  it.each([
    ['2024-03-01', '2024-03-01T00:00:00.000Z'],
    ['2024-02-29', '2024-02-29T00:00:00.000Z'],
    ['2024-03-01T10:20', '2024-03-01T10:20:00.000Z'],
    ['2024-03-01 10:20:30', '2024-03-01T10:20:30.000Z'],
    ['2024-03-01T10:20:30+02:00', '2024-03-01T08:20:30.000Z'],
  ])('reads subscribed_at %s as %s', (raw, iso) => {
    const parsed = parse({ email: 'a@example.com', subscribed_at: raw });
    expect('refused' in parsed ? parsed : parsed.subscribedAt?.toISOString()).toBe(iso);
  });

  it.each([
    [{ email: '' }, 'email is missing'],
    [{ email: 'a@b' }, 'email is invalid'],
    [{ email: 'a@example.com', subscribed_at: '01/02/2024' }, 'subscribed_at is not an ISO 8601 date'],
    [{ email: 'a@example.com', subscribed_at: '2024-13-45' }, 'subscribed_at is not an ISO 8601 date'],
    [{ email: 'a@example.com', subscribed_at: '2023-02-29T10:00Z' }, 'subscribed_at is not an ISO 8601 date'],
    [{ email: 'a@example.com', first_name: 'x\u0000' }, 'contains a NUL character'],
    [{ email: 'a@example.com', note: 'bad \uFFFD' }, 'is not valid UTF-8'],
    [{ email: 'a@example.com', note: 'lone \uD800' }, 'is not valid UTF-8'],
    [{ email: 'a@example.com', first_name: 'x'.repeat(1_001) }, 'first_name is too long'],
    [{ email: 'redacted-9@redacted.invalid' }, 'email is reserved for redacted subscribers'],
    [{ email: 'a@example.com', custom_data: '[1]' }, 'custom_data is not a JSON object'],
    [{ email: 'a@example.com', custom_data: '{bad' }, 'custom_data is not a JSON object'],
  ])('refuses %#: %s', (cells, reason) => {
    expect(parse(cells)).toEqual({ refused: reason });
  });
});

describe('checkImportHeader', () => {
  it('requires an email column, in any case', () => {
    expect(() => checkImportHeader(['Email', 'x'])).not.toThrow();
    expect(() => checkImportHeader(['name'])).toThrow('The CSV header has no "email" column');
  });
});
