import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { apiTokenPrefix, formatApiToken } from './api-token';
import { apiTokenSuffix, PLATFORM, redactedTokenValue } from './discovery';

describe('discovery', () => {
  const token = formatApiToken(Uint8Array.from({ length: 32 }, (_, i) => i * 7));

  it('redacts a token to its first four characters, eight • and its last four', () => {
    const redacted = redactedTokenValue(apiTokenPrefix(token), apiTokenSuffix(token));
    expect(redacted).toBe(`${token.slice(0, 4)}••••••••${token.slice(-4)}`);
    expect(redacted).toHaveLength(16);
    expect(redacted).not.toContain(token.slice(4, -4));
  });

  it('shows • for the last four of a token made before they were kept', () => {
    expect(redactedTokenValue(apiTokenPrefix(token), null)).toBe(`${token.slice(0, 4)}••••••••••••`);
  });

  it('names the release of package.json', () => {
    const pkg = JSON.parse(readFileSync(join(__dirname, '../../../package.json'), 'utf8')) as { version: string };
    expect(PLATFORM).toEqual({ name: 'Mailcast', version: pkg.version });
  });
});
