import { authenticated, DISCOVERY, type Json, ok, publicOperation } from './operation';
import { ref } from './schemas';

/** What clients of the reference service call first (docs/discovery.md). */
export const DISCOVERY_PATHS: Record<string, Json> = {
  '/api/v1/whoami': {
    get: authenticated({
      operationId: 'whoami',
      summary: 'The calling token and its channel',
      description: 'Which token is calling, the permissions it holds, and the channel it belongs to.',
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
      description: '`ready` is true when the channel has an active email server to send through.',
      tag: DISCOVERY,
      permission: null,
      responses: { '200': ok('The channel and its email servers.', ref('ChannelStatus')) },
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
