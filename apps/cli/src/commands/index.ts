import { broadcastProgress } from './broadcast';
import { channelCreate } from './channel';
import type { Command } from './command';
import { emailServerAdd } from './email-server';
import { segmentCount, segmentCreate } from './segment';
import { secretsReencrypt } from './secrets';
import { sequenceEnrol, sequenceList } from './sequence';
import { subscribersImport } from './subscribers';
import { templateCreate, templateDelete, templateList } from './template';
import { transactionalSend, transactionalShow } from './transactional';
import { tokenCreate, tokenRevoke } from './token';
import { presetCreate, userCreate, userSudo, userUnsudo } from './user';

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
  'sequence list': sequenceList,
  'sequence enrol': sequenceEnrol,
  'secrets reencrypt': secretsReencrypt,
  'template create': templateCreate,
  'template list': templateList,
  'template delete': templateDelete,
  'transactional send': transactionalSend,
  'transactional show': transactionalShow,
  'user create': userCreate,
  'user sudo': userSudo,
  'user unsudo': userUnsudo,
  'preset create': presetCreate,
};
