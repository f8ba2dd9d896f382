import { randomBytes } from 'node:crypto';
import { linkSync, mkdirSync, readFileSync, unlinkSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import type { Config } from '../config';
import type { Logger } from '../logger';
import { decodeSecretKey, SECRET_KEY_BYTES, SecretBox, SecretKeyError, secretKeyId } from './secret-box';

/** The development key's file under the data directory (docs/secrets.md). */
export const DEVELOPMENT_KEY_FILE = 'secret-key';

/**
 * The development key: read from `<data dir>/secret-key`, or created there (mode 600) on first
 * use with a warning. The file is written aside and linked into place, so two processes
 * starting together agree on one key.
 */
function developmentKey(dataDir: string, logger: Logger): Buffer {
  const file = path.join(dataDir, DEVELOPMENT_KEY_FILE);
  const read = () => {
    const key = decodeSecretKey(readFileSync(file, 'utf8'));
    if (key === null) throw new SecretKeyError(`${file} does not hold the base64 of ${SECRET_KEY_BYTES} bytes`);
    return key;
  };
  try {
    return read();
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
  }
  mkdirSync(dataDir, { recursive: true });
  const aside = `${file}.${process.pid}.${Date.now()}`;
  writeFileSync(aside, randomBytes(SECRET_KEY_BYTES).toString('base64') + '\n', { mode: 0o600 });
  try {
    linkSync(aside, file);
    logger.warn(`MAILCAST_SECRET_KEY is unset: created a development key in ${file}; set MAILCAST_SECRET_KEY in production`);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
  } finally {
    unlinkSync(aside);
  }
  return read();
}

const boxes = new Map<string, SecretBox>();

/**
 * The process's SecretBox: MAILCAST_SECRET_KEY (and MAILCAST_SECRET_KEYS_PREVIOUS) when set,
 * else the development key under the data directory. loadConfig has already refused a
 * production start without a key.
 */
export function secretBoxFor(config: Config, logger: Logger): SecretBox {
  const current = config.secretKey ?? developmentKey(config.dataDir, logger);
  const cacheKey = [current, ...config.previousSecretKeys].map(secretKeyId).join(',');
  let box = boxes.get(cacheKey);
  if (box === undefined) {
    box = new SecretBox(current, config.previousSecretKeys);
    boxes.set(cacheKey, box);
  }
  return box;
}
