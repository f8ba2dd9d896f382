import { isRedactedPassword, movesConnection, redactPassword, REDACTED_PASSWORD } from './email-server';

describe('SMTP password redaction (docs/email-servers.md)', () => {
  it.each(['p', 'short', 'right-password-123', 'x'.repeat(200), 'ünïcødé-pässwörd-long'])('shows %j as eight bullets, nothing of it', (password) => {
    expect(redactPassword(password)).toBe('••••••••');
    expect(REDACTED_PASSWORD).toHaveLength(8);
  });

  it('takes the eight bullets back as "unchanged" only when a password is stored', () => {
    expect(isRedactedPassword('••••••••', 'anything')).toBe(true);
    expect(isRedactedPassword('••••••••', null)).toBe(false);
    expect(isRedactedPassword('•••••••', 'anything')).toBe(false);
    expect(isRedactedPassword('new-password', 'anything')).toBe(false);
  });
});

describe('movesConnection', () => {
  const current = { host: 'smtp.example.com', port: 587, tls: 'starttls' as const };
  it.each([
    [{}, false],
    [{ host: 'SMTP.example.com' }, false],
    [{ port: 587, tls: 'starttls' as const }, false],
    [{ host: 'listener.example.net' }, true],
    [{ port: 2525 }, true],
    [{ tls: 'none' as const }, true],
  ])('%j moves the connection: %s', (changes, moves) => {
    expect(movesConnection(current, changes)).toBe(moves);
  });
});
