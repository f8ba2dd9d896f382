import {
  allowedCustomHeaders,
  appendToBody,
  escapeHtml,
  htmlToText,
  insertPreheader,
  linkIdentifier,
  looksLikeHtml,
  rewriteLinks,
  textToHtml,
  trackableLinks,
  trackingToken,
} from '@mailcast/domain';
import type { Broadcast, BroadcastLink, RandomSource, RecipientStore, SubscriberSnapshot, Templates } from '../ports';

export interface RenderedEmail {
  subject: string;
  text: string;
  html: string;
  headers: Record<string, string>;
}

export interface RecipientLinks {
  recipientId: number;
  subscriber: SubscriberSnapshot;
}

/**
 * Renders one broadcast for each recipient: Liquid per recipient (the templates adapter keeps
 * each parsed source), then tracking, preheader, unsubscribe link and headers. Built once per
 * broadcast and job, so the per-recipient work is rendering and string edits only.
 */
export class BroadcastRenderer {
  private readonly linkByUrl: ReadonlyMap<string, BroadcastLink>;
  private readonly customHeaders: Record<string, string>;
  private readonly base: string;

  constructor(
    private readonly broadcast: Broadcast,
    private readonly templates: Templates,
    links: readonly BroadcastLink[],
    publicUrl: string,
    /** The token a recipient's links carry (domain: trackingToken under the broadcast's secret). */
    private readonly tokenFor: (recipientId: number) => string,
  ) {
    this.linkByUrl = new Map(links.map((l) => [l.url, l]));
    this.customHeaders = allowedCustomHeaders(broadcast.emailHeaders);
    this.base = publicUrl.replace(/\/+$/, '');
  }

  /**
   * The renderer a sending job uses: the broadcast's trackable links saved (once, whichever job
   * comes first) and its tracking secret, kept from the first job on.
   */
  static async prepare(
    broadcast: Broadcast,
    store: Pick<RecipientStore, 'saveLinks' | 'trackingSecret'>,
    templates: Templates,
    random: RandomSource,
    publicUrl: string,
  ): Promise<BroadcastRenderer> {
    const sources = [broadcast.htmlBody ?? broadcast.body ?? ''];
    const links = broadcast.trackClicks
      ? await store.saveLinks(
          broadcast.id,
          sources.flatMap(trackableLinks).map((url) => ({ identifier: linkIdentifier(url), url })),
        )
      : [];
    const secret = await store.trackingSecret(broadcast.id, random.bytes(32));
    return new BroadcastRenderer(broadcast, templates, links, publicUrl, (id) => trackingToken(secret, id));
  }

  unsubscribeUrl(token: string): string {
    return `${this.base}/u/${token}`;
  }

  async render(recipient: RecipientLinks): Promise<RenderedEmail> {
    const b = this.broadcast;
    const s = recipient.subscriber;
    // CONTRACT (Liquid): exactly these variables are in scope.
    const scope = {
      subscriber: {
        email: s.email,
        first_name: s.firstName,
        last_name: s.lastName,
        tags: s.tags,
        custom_data: s.customData,
      },
      broadcast: { name: b.name, subject: b.subject },
    };
    const subject = (await this.templates.render(b.subject, scope, 'text')).replace(/\s+/g, ' ').trim();

    const body = b.body ?? '';
    const bodyIsHtml = looksLikeHtml(body);
    let html: string;
    if (b.htmlBody) html = await this.templates.render(b.htmlBody, scope, 'html');
    else if (bodyIsHtml) html = await this.templates.render(body, scope, 'html');
    else html = textToHtml(await this.templates.render(body, scope, 'text'));

    let text: string;
    if (b.htmlBody && body.trim() !== '') {
      const rendered = await this.templates.render(body, scope, 'text');
      text = bodyIsHtml ? htmlToText(rendered) : rendered;
    } else if (!b.htmlBody && !bodyIsHtml) {
      text = await this.templates.render(body, scope, 'text');
    } else {
      text = htmlToText(html);
    }

    const token = this.tokenFor(recipient.recipientId);
    const unsubscribe = this.unsubscribeUrl(token);
    if (b.trackClicks && this.linkByUrl.size > 0) {
      html = rewriteLinks(html, (url) => {
        const link = this.linkByUrl.get(url);
        return link ? `${this.base}/t/c/${token}/${link.identifier}` : null;
      });
    }
    if (b.preheader) html = insertPreheader(html, b.preheader);
    if (b.includeUnsubscribeLink) {
      html = appendToBody(
        html,
        `<p style="font-size:12px;color:#666"><a href="${escapeHtml(unsubscribe)}">Unsubscribe</a></p>`,
      );
      text = `${text}\n\nUnsubscribe: ${unsubscribe}`;
    }
    if (b.trackOpens) {
      html = appendToBody(
        html,
        `<img src="${escapeHtml(`${this.base}/t/o/${token}`)}" width="1" height="1" alt="" style="display:block;border:0;width:1px;height:1px">`,
      );
    }
    return {
      subject,
      text,
      html,
      headers: {
        ...this.customHeaders,
        // RFC 8058: an HTTPS (here PUBLIC_URL) URI the receiver POSTs to without a confirmation.
        'List-Unsubscribe': `<${unsubscribe}>`,
        'List-Unsubscribe-Post': 'List-Unsubscribe=One-Click',
      },
    };
  }
}
