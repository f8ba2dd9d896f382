import { Clock, RecordAuditEntries } from '@mailcast/core';
import { userInfo } from 'node:os';
import type { DependencyContainer } from 'tsyringe';

/** Commands that only read: not kept in the audit log. */
const READ_VERBS = new Set(['list', 'show', 'count', 'progress']);

function operator(): string {
  try {
    return `admin CLI (${userInfo().username})`;
  } catch {
    return 'admin CLI';
  }
}

/**
 * The admin CLI's writes go to the audit log like the API's (docs/teams.md, "Audit log"): actor
 * `cli` named by the operating-system user, the command as action and path, method `CLI`, and
 * the exit code as status (0 done, 1 refused). Flags are not kept: some carry secrets (`--pass`).
 * Recording never changes the command's outcome.
 */
export async function recordCliCommand(container: DependencyContainer, command: string, flags: Record<string, unknown>, exitCode: number): Promise<void> {
  if (READ_VERBS.has(command.split(' ')[1] ?? '')) return;
  const channel = typeof flags.channel === 'string' && /^[1-9]\d{0,15}$/.test(flags.channel) ? Number(flags.channel) : null;
  try {
    await container.resolve(RecordAuditEntries).execute([
      {
        occurredAt: container.resolve<Clock>(Clock).now(),
        actorType: 'cli',
        userId: null,
        tokenId: null,
        actorLabel: operator(),
        channelId: channel,
        method: 'CLI',
        path: command,
        status: exitCode,
        ip: null,
        action: command,
        resourceType: null,
        resourceId: typeof flags.id === 'string' ? flags.id.slice(0, 64) : null,
      },
    ]);
  } catch {
    // The database may be what failed the command; the command's own answer stands.
  }
}
