import { broadcastProgress } from './broadcast';
import { channelCreate } from './channel';
import type { Command } from './command';
import { emailServerAdd } from './email-server';
import { segmentCount, segmentCreate } from './segment';
import { secretsReencrypt } from './secrets';
import { subscribersImport } from './subscribers';
import { tokenCreate, tokenRevoke } from './token';

/** `<noun> <verb>` → command (docs/operations.md, Admin CLI). */
export const COMMANDS: Readonly<Record<string, Command>> = {
  'channel create': channelCreate,
  'token create': tokenCreate,
  'token revoke': tokenRevoke,
  'email-server add': emailServerAdd,
  'broadcast progress': broadcastProgress,
  'subscribers import': subscribersImport,
  'segment create': segmentCreate,
  'segment count': segmentCount,
  'secrets reencrypt': secretsReencrypt,
};
