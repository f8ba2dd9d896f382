import { PERMISSIONS } from '@mailcast/domain';
import { arrayOf, boolean, closed, integer, string, type Schema } from './schema-helpers';

/** Discovery (who am I, channel status) and the warnings of create and update answers. Spread into SCHEMAS by schemas.ts. */
export const DISCOVERY_SCHEMAS: Record<string, Schema> = {
  WhoAmI: closed({
    type: { const: 'api_token' },
    token_type: {
      type: 'string',
      enum: ['channel', 'admin_cross_channel'],
      description:
        '`channel`: the token belongs to one channel. `admin_cross_channel`: an admin token, which names a channel per request with `broadcast_channel_id`.',
    },
    token: closed({ id: integer(), permissions: arrayOf({ type: 'string', enum: [...PERMISSIONS] }) }),
    channel: {
      anyOf: [
        closed({ id: integer(), name: string(), slug: string('Names the channel in public URLs, e.g. its archive `/archive/<slug>` (docs/archive.md).') }),
        { type: 'null' },
      ],
      description: "The token's channel, or the one an admin token names; null for an admin token that names none.",
    },
  }),
  ChannelStatus: closed({
    status: { const: 'ok' },
    channel: closed({ id: integer(), name: string() }),
    email_servers: integer('How many email servers the channel has.'),
    ready: boolean('The channel has an active email server, so a broadcast can be sent.'),
  }),
  Warnings: arrayOf(
    closed({
      code: {
        type: 'string',
        enum: ['unrecognized_parameter', 'already_enrolled', 'parameter_ignored', 'parameter_overridden', 'double_opt_in_skipped'],
        description:
          "`already_enrolled`: add_subscriber found the subscriber in the sequence already. `parameter_ignored`: a parameter that could not be honoured here, its default stood (an unparsable list bound or opt-in form analytics date, a channel token's confirmed_at). `double_opt_in_skipped`: the subscriber was already confirmed. `parameter_overridden`: a rule changed a value the request set (a channel permission's write flag turned its read on).",
      },
      param: string('The attribute, as the body named it.'),
      message: string(),
    }),
    'What the request did not do as asked (attributes the API does not take, a subscriber already enrolled): it succeeded all the same. Present only when there are some.',
  ),
};
