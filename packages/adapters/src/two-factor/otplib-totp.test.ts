import { generate } from 'otplib';
import { OtplibTotp, QrcodeSvg } from './otplib-totp';

const totp = new OtplibTotp();
const secret = totp.generateSecret();
const T = 1_800_000_000; // seconds, at the start of a 30 s step
const codeAt = (epoch: number) => generate({ secret, epoch });

describe('OtplibTotp', () => {
  test('a 20-byte base32 secret', () => {
    expect(secret).toMatch(/^[A-Z2-7]{32}$/);
  });

  test('answers the time step of a code of the current step, or one step either side', async () => {
    const step = T / 30;
    await expect(totp.stepOf(secret, await codeAt(T), new Date(T * 1000))).resolves.toBe(step);
    await expect(totp.stepOf(secret, await codeAt(T - 30), new Date(T * 1000))).resolves.toBe(step - 1);
    await expect(totp.stepOf(secret, await codeAt(T + 30), new Date(T * 1000))).resolves.toBe(step + 1);
  });

  test('refuses a code two steps away and a wrong code', async () => {
    await expect(totp.stepOf(secret, await codeAt(T - 60), new Date(T * 1000))).resolves.toBeNull();
    await expect(totp.stepOf(secret, await codeAt(T + 60), new Date(T * 1000))).resolves.toBeNull();
    const right = await codeAt(T);
    const wrong = String((Number(right) + 1) % 1_000_000).padStart(6, '0');
    await expect(totp.stepOf(secret, wrong, new Date(T * 1000))).resolves.toBeNull();
  });

  test('the otpauth URI names the issuer, the account and the secret', () => {
    const uri = new URL(totp.uri(secret, 'ada@example.com'));
    expect(uri.protocol).toBe('otpauth:');
    expect(uri.searchParams.get('secret')).toBe(secret);
    expect(uri.searchParams.get('issuer')).toBe('Mailcast');
    expect(decodeURIComponent(uri.pathname)).toContain('ada@example.com');
  });
});

test('QrcodeSvg draws an SVG document', async () => {
  const svg = await new QrcodeSvg().svg('otpauth://totp/Mailcast:ada?secret=ABC');
  expect(svg).toMatch(/^<svg [^>]*xmlns="http:\/\/www.w3.org\/2000\/svg"/);
  expect(svg).toContain('<path');
});
