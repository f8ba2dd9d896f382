import { authenticated, DISCOVERY, type Json, ok } from './operation';
import { ref } from './schemas';

/** GET and PATCH /api/v1/channel/settings (docs/reputation-guard.md). */
export const CHANNEL_SETTINGS_PATHS: Record<string, Json> = {
  '/api/v1/channel/settings': {
    get: authenticated({
      operationId: 'getChannelSettings',
      summary: "The channel's settings",
      description: "The reputation guard's limits (every key, defaults where the channel set none) and the channel's own sender.",
      tag: DISCOVERY,
      permission: 'channel_settings_read',
      responses: { '200': ok('The settings.', ref('ChannelSettings')) },
      errors: [],
    }),
    patch: authenticated({
      operationId: 'updateChannelSettings',
      summary: "Change the channel's settings",
      description:
        'Only the fields given change; `reputation_guard` keys merge over the stored ones. 422 `{"error"}` naming every problem, nothing written: a key of the wrong type, a rate outside 0..100, `min_sent` below 1, an invalid `sender_email`. Unknown attributes are ignored with a warning.',
      tag: DISCOVERY,
      permission: 'channel_settings_write',
      body: { schema: ref('ChannelSettingsBody') },
      responses: { '200': ok('The settings.', ref('ChannelSettings')) },
      errors: ['422'],
    }),
  },
};
