import { checkReputationGuard, isValidEmail, resolveReputationGuard, type ReputationGuardSettings } from '@mailcast/domain';
import { inject, injectable } from 'tsyringe';
import { requirePermission, type Principal } from '../auth/authenticate';
import { UnauthorizedError, ValidationError } from '../errors';
import { ReputationStore, type ChannelSettingsChanges, type StoredChannelSettings } from '../ports';

/** The channel's settings as answered: every guard key filled in, and the channel's own sender. */
export interface ChannelSettings {
  reputationGuard: ReputationGuardSettings;
  senderEmail: string | null;
  senderName: string | null;
}

/** What PATCH carried, not yet checked: the route only finds the fields (flat or under `settings`). */
export interface ChannelSettingsWrite {
  reputation_guard?: unknown;
  sender_email?: unknown;
  sender_name?: unknown;
}

const answer = (stored: StoredChannelSettings): ChannelSettings => ({
  reputationGuard: resolveReputationGuard(stored.reputationGuard),
  senderEmail: stored.senderEmail,
  senderName: stored.senderName,
});

/** GET /api/v1/channel/settings (docs/reputation-guard.md). */
@injectable()
export class GetChannelSettings {
  constructor(@inject(ReputationStore) private readonly store: ReputationStore) {}

  async execute(caller: Principal): Promise<ChannelSettings> {
    requirePermission(caller, 'channel_settings_read');
    const stored = await this.store.findSettings(caller.channelId);
    if (stored === null) throw new UnauthorizedError();
    return answer(stored);
  }
}

/**
 * PATCH /api/v1/channel/settings: every field is checked first and any error writes nothing
 * (422 `{"error"}`, the problems joined by commas as the other writes answer). The guard's keys
 * merge over the stored ones; an empty sender string clears it.
 */
@injectable()
export class UpdateChannelSettings {
  constructor(@inject(ReputationStore) private readonly store: ReputationStore) {}

  async execute(caller: Principal, input: ChannelSettingsWrite): Promise<{ settings: ChannelSettings; unknownGuardKeys: string[] }> {
    requirePermission(caller, 'channel_settings_write');
    const problems: string[] = [];
    const changes: ChannelSettingsChanges = {};
    let unknownGuardKeys: string[] = [];
    if (input.reputation_guard !== undefined) {
      const { patch, errors, unknown } = checkReputationGuard(input.reputation_guard);
      for (const [field, messages] of Object.entries(errors)) problems.push(...messages.map((m) => `${field} ${m}`));
      changes.reputationGuard = patch;
      unknownGuardKeys = unknown;
    }
    const text = (field: 'sender_email' | 'sender_name', value: unknown): string | null | undefined => {
      if (value === undefined) return undefined;
      if (value === null) return null;
      if (typeof value !== 'string') {
        problems.push(`${field} must be a string`);
        return undefined;
      }
      const trimmed = value.trim();
      return trimmed === '' ? null : trimmed;
    };
    const email = text('sender_email', input.sender_email);
    if (email !== undefined && email !== null && !isValidEmail(email)) problems.push('sender_email is not a valid email address');
    else if (email !== undefined) changes.senderEmail = email;
    const name = text('sender_name', input.sender_name);
    if (name !== undefined && name !== null && name.length > 200) problems.push('sender_name must be at most 200 characters');
    else if (name !== undefined) changes.senderName = name;
    if (problems.length > 0) throw new ValidationError(problems.join(', '));
    const stored = await this.store.updateSettings(caller.channelId, changes);
    if (stored === null) throw new UnauthorizedError();
    return { settings: answer(stored), unknownGuardKeys };
  }
}
