import { apiTokenPrefix, formatApiToken, hashApiToken, isPermission, PERMISSIONS } from './api-token';

describe('api tokens', () => {
  it('formats 32 random bytes as mc_ + base64url', () => {
    const token = formatApiToken(new Uint8Array(32).fill(255));
    expect(token).toBe('mc_' + '_'.repeat(42) + '8');
    expect(apiTokenPrefix(token)).toBe('mc_' + '_'.repeat(6));
  });

  it('refuses too little entropy', () => {
    expect(() => formatApiToken(new Uint8Array(16))).toThrow(RangeError);
  });

  it('hashes with SHA-256 (known answer)', () => {
    expect(hashApiToken('abc').toString('hex')).toBe('ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad');
  });

  it.each(PERMISSIONS)('knows the permission %s', (p) => expect(isPermission(p)).toBe(true));

  it('rejects unknown permissions', () => {
    expect(isPermission('admin')).toBe(false);
    expect(isPermission('broadcasts_READ')).toBe(false);
  });
});
