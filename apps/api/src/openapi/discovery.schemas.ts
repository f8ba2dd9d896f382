import { PERMISSIONS } from '@mailcast/domain';
import { arrayOf, boolean, closed, integer, string, type Schema } from './schema-helpers';

/** Discovery (who am I, channel status) and the warnings of create and update answers. Spread into SCHEMAS by schemas.ts. */
export const DISCOVERY_SCHEMAS: Record<string, Schema> = {
  WhoAmI: closed({
    type: { const: 'api_token' },
    token_type: { const: 'channel', description: 'Every token belongs to one channel.' },
    token: closed({ id: integer(), permissions: arrayOf({ type: 'string', enum: [...PERMISSIONS] }) }),
    channel: closed({ id: integer(), name: string() }),
  }),
  ChannelStatus: closed({
    status: { const: 'ok' },
    channel: closed({ id: integer(), name: string() }),
    email_servers: integer('How many email servers the channel has.'),
    ready: boolean('The channel has an active email server, so a broadcast can be sent.'),
  }),
  Warnings: arrayOf(
    closed({
      code: { const: 'unrecognized_parameter' },
      param: string('The attribute, as the body named it.'),
      message: string(),
    }),
    'Attributes of the body the API does not take: the request succeeded and they were ignored. Present only when there are some.',
  ),
};
