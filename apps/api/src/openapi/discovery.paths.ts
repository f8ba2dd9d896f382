import { authenticated, DISCOVERY, type Json, ok, publicOperation, RATE_LIMIT_HEADERS } from './operation';
import { ref } from './schemas';

/** What clients of the reference service call first (docs/discovery.md). */
export const DISCOVERY_PATHS: Record<string, Json> = {
  '/api/v1/whoami': {
    get: authenticated({
      operationId: 'whoami',
      summary: 'The calling token and its channel',
      description:
        'Which token is calling (its label, kind, redacted value, last use and every permission of its kind, true or false) and the channel it acts for. A signed-in dashboard user gets `type: user` and `user` in place of the token.',
      tag: DISCOVERY,
      permission: null,
      responses: { '200': ok('The token and its channel.', ref('WhoAmI')) },
      errors: [],
    }),
  },
  '/api/v1/status': {
    get: authenticated({
      operationId: 'getStatus',
      summary: "The channel's readiness to send",
      description:
        "The channel's sender, subscriber counts and readiness: each kind of email can go out when the channel has an active email server and a sender address. `ready` is `readiness.broadcasts`.",
      tag: DISCOVERY,
      permission: null,
      responses: { '200': ok('The channel and its email servers.', ref('ChannelStatus')) },
      errors: [],
    }),
  },
  '/api/v1/prime': {
    get: authenticated({
      operationId: 'prime',
      summary: 'Everything the caller can do',
      description:
        "The platform, the calling token and channel (as whoami), the resources the token can reach with the operations it may call (read from this document's `x-permission`s), the rate limit, and tips. An admin token may name no channel (`channel` null).",
      tag: DISCOVERY,
      permission: null,
      responses: { '200': ok('The capabilities manifest.', ref('Prime')) },
      errors: [],
    }),
  },
  '/api/v1/skill': {
    get: authenticated({
      operationId: 'skill',
      summary: 'The agent skill, as Markdown',
      description:
        'Markdown with YAML front matter (name, description, version) for an AI agent to load: how to authenticate, where this document is, and the safety rules (no send, schedule, unsubscribe, redact or delete without human confirmation; read `warnings`; honour `Retry-After`; never print tokens).',
      tag: DISCOVERY,
      permission: null,
      responses: {
        '200': {
          description: 'The skill, as `text/plain; charset=utf-8`.',
          headers: RATE_LIMIT_HEADERS,
          content: { 'text/plain': { schema: { type: 'string' } } },
        },
      },
      errors: [],
    }),
  },
  '/api/v1/channel/design': {
    get: authenticated({
      operationId: 'getChannelDesign',
      summary: "The channel's brand kit",
      description:
        "Colours, typography, layout and brand links of the token's channel, every key always present (defaults where the channel set none). Read-only here: set with the admin CLI `channel design`.",
      tag: DISCOVERY,
      permission: 'templates_read',
      responses: { '200': ok('The brand kit.', ref('ChannelDesign')) },
      errors: [],
    }),
  },
  '/api/v1/openapi': {
    get: publicOperation({
      operationId: 'getOpenApiDocumentYaml',
      summary: 'This document as YAML',
      description: 'The same document as /api/v1/openapi.json, as YAML. No authentication.',
      tag: DISCOVERY,
      responses: { '200': { description: 'The document.', content: { 'application/yaml': { schema: { type: 'string' } } } } },
    }),
  },
};
