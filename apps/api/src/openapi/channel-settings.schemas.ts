import { DEFAULT_REPUTATION_GUARD } from '@mailcast/domain';
import { boolean, closed, integer, nestedOrFlat, nullableString, number, ref, warned, type Schema } from './schema-helpers';

const GUARD = DEFAULT_REPUTATION_GUARD;

const guardFields = {
  enabled: boolean(`Pause sending broadcasts and take email servers out of rotation past the limits (default ${GUARD.enabled}).`),
  min_sent: integer(`Nothing is judged before this many emails were handed over (at least 1; default ${GUARD.min_sent}).`),
  max_hard_bounce_rate: number(`Percent, 0 to 100: hard bounces / emails handed over (default ${GUARD.max_hard_bounce_rate}).`),
  max_complaint_rate: number(`Percent, 0 to 100: complaints / emails handed over (default ${GUARD.max_complaint_rate}).`),
};

/** The channel settings API (docs/reputation-guard.md). Spread into SCHEMAS by schemas.ts. */
export const CHANNEL_SETTINGS_SCHEMAS: Record<string, Schema> = {
  ReputationGuard: closed(
    guardFields,
    'A sending broadcast whose figures cross a limit pauses itself (`pause_reason`, `broadcast.paused` with the figures); an email server whose last 24 h cross one leaves rotation (`active: false`, `deactivated_reason`).',
  ),
  ChannelSettings: warned(
    closed({
      reputation_guard: ref('ReputationGuard'),
      sender_email: nullableString("The channel's own sender address (an email server's from_email comes first)."),
      sender_name: nullableString("The channel's own sender name."),
    }),
  ),
  ChannelSettingsInput: {
    type: 'object',
    properties: {
      reputation_guard: {
        type: 'object',
        properties: {
          enabled: boolean(),
          min_sent: { type: 'integer', minimum: 1 },
          max_hard_bounce_rate: { type: 'number', minimum: 0, maximum: 100 },
          max_complaint_rate: { type: 'number', minimum: 0, maximum: 100 },
        },
        description: 'Any of the keys; those not given keep their value.',
      },
      sender_email: nullableString('A valid address; empty or null clears it.'),
      sender_name: nullableString('At most 200 characters; empty or null clears it.'),
    },
  },
  ChannelSettingsBody: nestedOrFlat('settings', 'ChannelSettingsInput'),
};
