import { randomBytes } from 'node:crypto';
import { mkdtempSync, readFileSync, statSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import winston from 'winston';
import Transport from 'winston-transport';
import { loadConfig } from '../config';
import { isSealed, SecretBox, secretKeyId } from './secret-box';
import { secretBoxFor } from './secret-keys';

describe('SecretBox (AES-256-GCM envelopes)', () => {
  const key = randomBytes(32);
  const box = new SecretBox(key);

  it('seals to an envelope naming the key, never containing the plaintext, and opens it again', () => {
    const sealed = box.seal('email_servers.password', 'hunter2-correct-horse');
    expect(sealed).toMatch(new RegExp(`^mcs1\\.${secretKeyId(key)}\\.[A-Za-z0-9_-]+$`));
    expect(sealed).not.toContain('hunter2');
    expect(box.openText('email_servers.password', sealed)).toBe('hunter2-correct-horse');
    expect(box.seal('email_servers.password', 'x')).not.toBe(box.seal('email_servers.password', 'x'));
  });

  it('refuses a value sealed for another column, a tampered value and an unknown key', () => {
    const sealed = box.seal('webhook_endpoints.secret', 'whsec_abc');
    expect(() => box.open('email_servers.password', sealed)).toThrow('does not authenticate');
    const body = Buffer.from(sealed.split('.')[2]!, 'base64url');
    body[body.length - 20]! ^= 1;
    const tampered = `mcs1.${secretKeyId(key)}.${body.toString('base64url')}`;
    expect(() => box.open('webhook_endpoints.secret', tampered)).toThrow('does not authenticate');
    expect(() => new SecretBox(randomBytes(32)).open('webhook_endpoints.secret', sealed)).toThrow(
      /neither MAILCAST_SECRET_KEY nor in MAILCAST_SECRET_KEYS_PREVIOUS/,
    );
  });

  it('opens values of a previous key and seals new ones under the current key', () => {
    const next = new SecretBox(randomBytes(32), [key]);
    const old = box.seal('broadcasts.tracking_secret', Buffer.from([1, 2, 3]));
    expect([...next.open('broadcasts.tracking_secret', old)]).toEqual([1, 2, 3]);
    expect(next.isCurrent(old)).toBe(false);
    expect(next.isCurrent(next.seal('broadcasts.tracking_secret', 'x'))).toBe(true);
  });

  it('returns legacy plaintext as it is', () => {
    expect(isSealed('whsec_abc')).toBe(false);
    expect(box.openText('webhook_endpoints.secret', 'whsec_abc')).toBe('whsec_abc');
  });
});

describe('the process key', () => {
  const logger = () => {
    const lines: string[] = [];
    const transport = new (class extends Transport {
      override log(info: { message: string }, done: () => void) {
        lines.push(info.message);
        done();
      }
    })();
    return { lines, logger: winston.createLogger({ transports: [transport] }) };
  };

  it('uses MAILCAST_SECRET_KEY and MAILCAST_SECRET_KEYS_PREVIOUS when set', () => {
    const [current, old] = [randomBytes(32), randomBytes(32)];
    const config = loadConfig({
      MAILCAST_SECRET_KEY: current.toString('base64'),
      MAILCAST_SECRET_KEYS_PREVIOUS: old.toString('base64'),
    });
    const box = secretBoxFor(config, logger().logger);
    expect(box.currentKeyId).toBe(secretKeyId(current));
    expect(box.openText('email_servers.password', new SecretBox(old).seal('email_servers.password', 'p'))).toBe('p');
  });

  it('without one, creates a development key under the data directory once, with a warning', () => {
    const dataDir = mkdtempSync(path.join(os.tmpdir(), 'mailcast-key-'));
    const first = logger();
    const box = secretBoxFor(loadConfig({ MAILCAST_DATA_DIR: dataDir }), first.logger);
    const file = path.join(dataDir, 'secret-key');
    expect(statSync(file).mode & 0o777).toBe(0o600);
    expect(secretKeyId(Buffer.from(readFileSync(file, 'utf8').trim(), 'base64'))).toBe(box.currentKeyId);
    expect(first.lines).toEqual([expect.stringContaining('MAILCAST_SECRET_KEY is unset: created a development key')]);
    const second = logger();
    expect(secretBoxFor(loadConfig({ MAILCAST_DATA_DIR: dataDir }), second.logger).currentKeyId).toBe(box.currentKeyId);
    expect(second.lines).toEqual([]);
  });
});
