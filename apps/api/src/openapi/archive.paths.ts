import { html, type Json, PUBLIC, publicOperation } from './operation';

const slugParam: Json = {
  name: 'slug',
  in: 'path',
  required: true,
  description: "The channel's slug (whoami's `channel.slug`).",
  schema: { type: 'string', pattern: '^[a-z0-9]+(-[a-z0-9]+)*$' },
};

/** The public archive and web views (docs/archive.md): HTML pages and an Atom feed, no authentication. */
export const ARCHIVE_PATHS: Record<string, Json> = {
  '/archive/{slug}': {
    parameters: [slugParam],
    get: publicOperation({
      operationId: 'archivePage',
      summary: "A channel's public archive",
      description: 'The archived (`archive: true`), sent broadcasts of the channel, newest sent first (at most 100). No personal data, no tracking.',
      tag: PUBLIC,
      responses: { '200': html('The list page.'), '404': html('No channel has this slug.') },
    }),
  },
  '/archive/{slug}/feed.atom': {
    parameters: [slugParam],
    get: publicOperation({
      operationId: 'archiveFeed',
      summary: "A channel's archive as an Atom feed",
      description: 'RFC 4287; the 20 newest archived broadcasts, each with its HTML as escaped `html` content.',
      tag: PUBLIC,
      responses: {
        '200': { description: 'The feed.', content: { 'application/atom+xml': { schema: { type: 'string' } } } },
        '404': html('No channel has this slug.'),
      },
    }),
  },
  '/archive/{slug}/{id}': {
    parameters: [slugParam, { name: 'id', in: 'path', required: true, description: 'The broadcast id.', schema: { type: 'integer' } }],
    get: publicOperation({
      operationId: 'archivedBroadcastPage',
      summary: 'An archived broadcast',
      description:
        'The broadcast rendered for nobody (subscriber variables empty), without open pixel, click rewriting or unsubscribe link; its HTML in a sandboxed iframe.',
      tag: PUBLIC,
      responses: { '200': html('The broadcast page.'), '404': html('Not archived, not sent, or not of this channel.') },
    }),
  },
  '/w/{token}': {
    parameters: [
      {
        name: 'token',
        in: 'path',
        required: true,
        description: "The token of a recipient's `{{ web_view_url }}`, signed under the broadcast's secret.",
        schema: { type: 'string' },
      },
    ],
    get: publicOperation({
      operationId: 'webView',
      summary: "A recipient's own copy of a broadcast",
      description: 'Rendered with the recipient’s data as it is now, without tracking; opening it records and changes nothing.',
      tag: PUBLIC,
      responses: { '200': html('The copy.'), '404': html('A token that does not verify.') },
    }),
  },
};
