import { PLATFORM } from '@mailcast/domain';

/**
 * The agent skill (docs/discovery.md, skill): Markdown with YAML front matter that an AI agent
 * loads before it acts. The safety rules are the contract's (§4.8); the rest says how to
 * authenticate and where the OpenAPI document is. Built once per process: it names nothing of
 * the caller, so any valid token reads the same text.
 */
export function skillMarkdown(publicUrl: string): string {
  const api = `${publicUrl}/api/v1`;
  return `---
name: mailcast
description: Work with a Mailcast installation (self-hosted email campaigns) through its REST API - subscribers, broadcasts, sequences, segments, templates, transactional email and webhooks - safely, with a human confirming anything that sends or destroys.
version: ${PLATFORM.version}
---

# Mailcast email campaigns

Mailcast sends broadcasts (email campaigns), sequences (drip automations) and transactional
email for the channels of one installation. You reach it over HTTPS with an API token.

## Authenticate

- Send \`Authorization: Bearer <token>\` on every call to \`${api}\`.
- The token is a secret. **Never print, log, echo or repeat a token**, nor put it in a URL,
  a file you show, or an answer. Refer to it by its label or by \`redacted_value\` from whoami.
- An admin (cross-channel) token names the channel of each call with \`broadcast_channel_id\`
  (query or JSON body); a channel token always acts for its own channel.
- A missing token, a revoked one, or one without the permission an operation needs answers
  401 \`{"error": "Unauthorized"}\`. Do not retry a 401: ask the human for a token that may.

## Start here

1. \`GET ${api}/whoami\` - which token you hold, its permissions (every name, true or false)
   and its channel.
2. \`GET ${api}/status\` - the channel's sender, subscriber counts and \`readiness\`: do not
   attempt to send while \`readiness.broadcasts\` is false.
3. \`GET ${api}/prime\` - what you can reach: each resource you may read or write and its
   endpoints, the rate limit, and tips.
4. The full OpenAPI 3.1 document: \`${api}/openapi.json\` (JSON) or \`${api}/openapi\` (YAML),
   no token needed. Read an operation's \`x-permission\` before calling it.

## Safety rules

- **Ask a human to confirm before any of these, every time, naming what will happen and to how
  many people:** sending a broadcast (\`send_broadcast\`), scheduling or rescheduling one
  (\`schedule_broadcast\`), sending a transactional email, unsubscribing a subscriber,
  redacting a subscriber, and deleting anything (broadcasts, subscribers' data, segments,
  sequences, templates, webhook endpoints, suppressions). Drafting, reading and listing need
  no confirmation.
- Sent email cannot be recalled. When unsure, create a draft and let the human send it.
- Read \`warnings\` in every answer: a create or update that succeeded may still have ignored or
  overridden something you sent (\`unrecognized_parameter\`, \`parameter_ignored\`,
  \`parameter_overridden\`). Tell the human, and fix the call rather than assume it worked.
- Honour the rate limit: on 429, wait the seconds \`Retry-After\` gives before trying again,
  and slow down when \`X-RateLimit-Remaining\` is low. Never retry in a tight loop.
- Use an \`Idempotency-Key\` header on transactional sends, so a retried request never sends twice.
- Never guess ids: look them up (lists, \`subscribers/find.json?email=\`), and act only within
  the channel whoami names.

## Errors

Errors are JSON: \`{"error": "..."}\`, or \`{"errors": {"field": ["..."]}}\` for field
validation (422). 404 means not found in this channel. 5xx: wait and retry a read; ask before
retrying a write.
`;
}
