import { GetChannelSettings, UpdateChannelSettings, type ChannelSettings, type ChannelSettingsWrite } from '@mailcast/core';
import { Router } from 'express';
import type { DependencyContainer } from 'tsyringe';
import { principal } from '../auth';
import { unrecognizedParameters, withWarnings, type BodyShape, type Warning } from '../warnings';

/** The fields a settings write takes, nested under `settings` or flat (docs/reputation-guard.md). */
export const SETTINGS_BODY: BodyShape = { key: 'settings', fields: ['reputation_guard', 'sender_email', 'sender_name'] };

const isObject = (value: unknown): value is Record<string, unknown> => typeof value === 'object' && value !== null && !Array.isArray(value);

/** The body's fields: under `settings` when it is an object there, else the top level. */
function settingsFields(body: unknown): ChannelSettingsWrite {
  if (!isObject(body)) return {};
  const fields = isObject(body.settings) ? body.settings : body;
  return { reputation_guard: fields.reputation_guard, sender_email: fields.sender_email, sender_name: fields.sender_name };
}

export function presentChannelSettings(s: ChannelSettings) {
  return { reputation_guard: { ...s.reputationGuard }, sender_email: s.senderEmail, sender_name: s.senderName };
}

/** The channel's settings: the reputation guard's limits and the channel's own sender (docs/reputation-guard.md). */
export function channelSettingsRoutes(container: DependencyContainer): Router {
  const router = Router();
  router.get('/channel/settings', async (_req, res) => {
    const caller = principal(res, 'channel_settings_read');
    res.json(presentChannelSettings(await container.resolve(GetChannelSettings).execute(caller)));
  });
  router.patch('/channel/settings', async (req, res) => {
    const caller = principal(res, 'channel_settings_write');
    const { settings, unknownGuardKeys } = await container.resolve(UpdateChannelSettings).execute(caller, settingsFields(req.body));
    const warnings: Warning[] = [
      ...unrecognizedParameters(req.body, SETTINGS_BODY),
      ...unknownGuardKeys.map((key) => ({
        code: 'unrecognized_parameter' as const,
        param: `reputation_guard.${key}`,
        message: `reputation_guard.${key} is not a parameter of the reputation guard the API accepts; it was ignored`,
      })),
    ];
    res.json(withWarnings(presentChannelSettings(settings), warnings));
  });
  return router;
}
