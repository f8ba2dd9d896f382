import { createHash } from 'node:crypto';
import { hashRecoveryCode, normalizeRecoveryCode, recoveryCodeFrom, totpCodeOf } from './two-factor';

describe('recovery codes', () => {
  test('ten bytes make xxxxx-xxxxx from the alphabet without i, l, o and 1', () => {
    expect(recoveryCodeFrom(Uint8Array.from([0, 1, 2, 3, 4, 31, 32, 33, 255, 8]))).toBe('abcde-9ab9j');
    expect(() => recoveryCodeFrom(new Uint8Array(9))).toThrow(RangeError);
  });

  test('case, spaces and dashes do not change what is compared', () => {
    expect(normalizeRecoveryCode(' ABCDE-9ab9J ')).toBe('abcde9ab9j');
    expect(hashRecoveryCode('ABCDE 9AB9J').equals(hashRecoveryCode('abcde-9ab9j'))).toBe(true);
    expect(hashRecoveryCode('abcde-9ab9j').toString('hex')).toBe(createHash('sha256').update('abcde9ab9j').digest('hex'));
  });
});

test.each([
  ['123456', '123456'],
  ['123 456', '123456'],
  ['12345', null],
  ['1234567', null],
  ['abcde-9ab9j', null],
])('totpCodeOf(%p) is %p', (typed, code) => {
  expect(totpCodeOf(typed)).toBe(code);
});
