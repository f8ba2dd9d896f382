import { ConfigToken, type Config } from '@mailcast/adapters';
import { DescribeCaller, GetChannelStatus, type CallerDescription, type DescribedToken } from '@mailcast/core';
import { CHANNEL_PERMISSIONS, PLATFORM } from '@mailcast/domain';
import { Router } from 'express';
import type { DependencyContainer } from 'tsyringe';
import { OPENAPI_DOCUMENT } from '../../openapi/document';
import { anyPrincipal as caller } from '../auth';
import { capabilitiesOf } from './capabilities';
import { skillMarkdown } from './skill';

const tokenJson = (token: DescribedToken) => ({
  id: token.id,
  label: token.label,
  type: token.type,
  redacted_value: token.redactedValue,
  last_used_at: token.lastUsedAt?.toISOString() ?? null,
  permissions: token.permissions,
});

/** whoami's answer (docs/discovery.md): `token_type` stays beside `type` for older clients. */
const whoamiJson = (who: CallerDescription) =>
  who.type === 'user'
    ? { type: who.type, user: who.user, channel: who.channel }
    : { type: who.type, token_type: who.tokenType, token: tokenJson(who.token), channel: who.channel };

/** The tips prime gives every caller (docs/discovery.md, prime). */
const TIPS = [
  'Call GET /api/v1/status before sending: send only while readiness.broadcasts is true.',
  'Ask a human to confirm before sending, scheduling, unsubscribing, redacting or deleting anything.',
  'Read `warnings` in create and update answers: something you sent may have been ignored or overridden.',
  'On 429, wait the seconds Retry-After gives before retrying.',
  'Never print or log the API token; refer to it by its label or redacted_value.',
  'The OpenAPI document is at /api/v1/openapi.json (YAML at /api/v1/openapi); each operation names its x-permission.',
  'An admin token names the channel of each call with broadcast_channel_id.',
  'GET /api/v1/skill gives these rules as Markdown for an agent to load.',
];

/** Discovery (docs/discovery.md): any valid token may ask who it is, whether it can send, and what it can reach. */
export function discoveryRoutes(container: DependencyContainer): Router {
  const router = Router();
  const config = container.resolve<Config>(ConfigToken);
  const skill = skillMarkdown(config.publicUrl);

  router.get('/whoami', async (_req, res) => {
    res.json(whoamiJson(await container.resolve(DescribeCaller).execute(caller(res))));
  });

  router.get('/status', async (_req, res) => {
    const status = await container.resolve(GetChannelStatus).execute(caller(res));
    const { id, name, senderEmail, senderName } = status.channel;
    res.json({
      status: 'ok',
      channel: { id, name, sender_email: senderEmail, sender_name: senderName },
      email_servers: status.emailServers,
      subscribers: status.subscribers,
      readiness: status.readiness,
      ready: status.readiness.broadcasts,
    });
  });

  router.get('/prime', async (_req, res) => {
    const principal = caller(res);
    const who = whoamiJson(await container.resolve(DescribeCaller).execute(principal));
    res.json({
      platform: PLATFORM,
      ...('token' in who ? { token: who.token } : { token: null, user: who.user }),
      channel: who.channel,
      // A channel token reaches nothing admin-only, whatever its row says (docs/auth.md, Admin tokens).
      capabilities: capabilitiesOf(
        OPENAPI_DOCUMENT,
        principal.admin === true ? principal.permissions : principal.permissions.filter((p) => CHANNEL_PERMISSIONS.includes(p)),
      ),
      rate_limit: { requests_per_minute: config.rateLimitPerMinute > 0 ? config.rateLimitPerMinute : null },
      tips: TIPS,
    });
  });

  router.get('/skill', (_req, res) => {
    res.type('text/plain; charset=utf-8').send(skill);
  });

  return router;
}
