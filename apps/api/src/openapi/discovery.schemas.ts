import { BRAND_COLOR_KEYS, BRAND_FONTS, CHANNEL_PERMISSIONS, PERMISSIONS, PLATFORM, SOCIAL_ICON_STYLES, SOCIAL_NETWORKS } from '@mailcast/domain';
import { arrayOf, boolean, closed, integer, nullableDateTime, nullableString, ref, string, type Schema } from './schema-helpers';

const CALLER_TYPE =
  '`channel_scoped`: the token belongs to one channel. `admin_cross_channel`: an admin token, which names a channel per request with `broadcast_channel_id`.';

/** Every permission name of the caller's kind → whether it holds it: a channel token's never lists the admin-only ones. */
const PERMISSION_MAP: Schema = {
  type: 'object',
  properties: Object.fromEntries(PERMISSIONS.map((p) => [p, { type: 'boolean' }])),
  required: [...CHANNEL_PERMISSIONS],
  additionalProperties: false,
  description: "Every permission name of the caller's kind, true where it holds it (a channel token: the channel permissions; an admin token or a user: all).",
};

/** closed(), with the named keys not required. */
const optional = (keys: string[], properties: Record<string, Schema>): Schema => {
  const schema = closed(properties);
  return { ...schema, required: (schema.required as string[]).filter((k) => !keys.includes(k)) };
};

const CHANNEL: Schema = {
  anyOf: [
    closed({ id: integer(), name: string(), slug: string('Names the channel in public URLs, e.g. its archive `/archive/<slug>` (docs/archive.md).') }),
    { type: 'null' },
  ],
  description: "The token's channel, or the one an admin token names with `broadcast_channel_id`; null for an admin token that names none.",
};

/** Discovery (who am I, channel status) and the warnings of create and update answers. Spread into SCHEMAS by schemas.ts. */
export const DISCOVERY_SCHEMAS: Record<string, Schema> = {
  WhoAmI: {
    description:
      'The calling token (`type` `channel_scoped` or `admin_cross_channel`), or a signed-in dashboard user (`type` `user`), and the channel it acts for.',
    oneOf: [
      closed({
        type: { type: 'string', enum: ['channel_scoped', 'admin_cross_channel'], description: CALLER_TYPE },
        token_type: {
          type: 'string',
          enum: ['channel', 'admin_cross_channel'],
          description: 'The older name of the kind (kept for clients written before `type` named it): `channel` or `admin_cross_channel`.',
        },
        token: ref('DescribedToken'),
        channel: CHANNEL,
      }),
      closed({
        type: { const: 'user' },
        user: closed(
          { id: integer(), email: string(), permissions: PERMISSION_MAP },
          'A signed-in dashboard user: the permissions it holds in the channel it acts for (docs/teams.md).',
        ),
        channel: CHANNEL,
      }),
    ],
  },
  DescribedToken: closed(
    {
      id: integer(),
      label: nullableString('The label given at creation (`token create --label`).'),
      type: { type: 'string', enum: ['channel_scoped', 'admin_cross_channel'], description: CALLER_TYPE },
      redacted_value: string(
        'The first four characters, eight `•`, the last four. A token created before Mailcast kept its last four shows `•` in their place. Never the token.',
      ),
      last_used_at: nullableDateTime('When the token was last used, to the minute (written at most once a minute); null if never.'),
      permissions: PERMISSION_MAP,
    },
    'The calling token: never its value.',
  ),
  ChannelStatus: closed({
    status: { const: 'ok' },
    channel: closed({
      id: integer(),
      name: string(),
      sender_email: nullableString("The address email goes out from: the sending server's, else the channel's; null when neither set one."),
      sender_name: nullableString('The name beside it, by the sending rule (docs/broadcasts-and-sending.md).'),
    }),
    email_servers: integer('How many email servers the channel has.'),
    subscribers: closed({ total: integer('Every subscriber of the channel.'), active: integer('Those with `is_active` true.') }),
    readiness: closed(
      { broadcasts: boolean(), sequences: boolean(), transactionals: boolean() },
      'Each kind of email can go out: the channel has an active email server and a sender address. The three agree in Mailcast.',
    ),
    ready: boolean('The same as `readiness.broadcasts` (the older key).'),
  }),
  Prime: optional(['user'], {
    platform: closed({ name: { const: PLATFORM.name }, version: string('The release of Mailcast.') }),
    token: { anyOf: [ref('DescribedToken'), { type: 'null' }], description: 'The calling token, as whoami shows it; null for a signed-in user.' },
    user: closed({ id: integer(), email: string(), permissions: PERMISSION_MAP }, 'Only for a signed-in dashboard user.'),
    channel: CHANNEL,
    capabilities: arrayOf(
      closed({
        resource: string('`discovery` (every token), or the name shared by a pair of permissions: `subscribers` for `subscribers_read`/`subscribers_write`.'),
        read: boolean('The caller holds `<resource>_read`.'),
        write: boolean('The caller holds `<resource>_write`.'),
        endpoints: arrayOf(closed({ method: string(), path: string('As this document writes it.') })),
      }),
      "Only the resources the caller can reach, with only the operations it may call: read from each operation's `x-permission` in this document.",
    ),
    rate_limit: closed({ requests_per_minute: { type: ['integer', 'null'], description: 'Per token; null when the rate limit is off.' } }),
    tips: arrayOf(string()),
  }),
  ChannelDesign: closed(
    {
      colors: closed(Object.fromEntries(BRAND_COLOR_KEYS.map((k) => [k, { type: 'string', pattern: '^#(?:[0-9a-f]{3}|[0-9a-f]{6})$' }]))),
      typography: closed({ font: { type: 'string', enum: [...BRAND_FONTS] }, font_stack: string('An email-safe CSS font-family list for the font.') }),
      layout: closed({ width: integer('Content width in pixels, 320 to 1200.'), radius: integer('Corner radius in pixels, 0 to 32.') }),
      brand: closed({
        logo_url: nullableString('A public http(s) URL, or null.'),
        logo_width: integer('Pixels, 16 to 600.'),
        website_url: nullableString(),
        social_links: arrayOf(closed({ network: { type: 'string', enum: [...SOCIAL_NETWORKS] }, url: string() }), 'At most 10.'),
        social_icon_style: { type: 'string', enum: [...SOCIAL_ICON_STYLES] },
      }),
    },
    'Every key, always: what the channel set over the defaults (docs/brand-kit.md).',
  ),
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
