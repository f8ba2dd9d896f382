import { closed, string, type Schema } from './schema-helpers';

/** The rendered preview of a broadcast. Spread into SCHEMAS by schemas.ts. */
export const PREVIEW_SCHEMAS: Record<string, Schema> = {
  BroadcastPreview: closed({
    subscriber_email: string('The subscriber it was rendered for.'),
    subject: string('The rendered subject.'),
    preheader: { type: ['string', 'null'] },
    text: string('The plain-text part.'),
    html: string('The HTML part (links untracked, no open pixel).'),
  }),
};
