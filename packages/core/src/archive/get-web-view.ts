import { verifyWebViewToken, webViewTokenRecipient } from '@mailcast/domain';
import { inject, injectable } from 'tsyringe';
import { HtmlReader, PublicLinks, Repositories, Templates } from '../ports';
import { renderBrowserCopy, type BrowserCopy } from './archive-copy';

/**
 * A recipient's own copy of a broadcast (`{{ web_view_url }}`, docs/archive.md, Web view): the
 * token names the recipient under the broadcast's tracking secret; the copy is rendered with
 * their data as it is now, and without tracking. Reads only: opening it records nothing.
 * null (a 404 page) for a token that does not verify or a broadcast that is gone.
 */
@injectable()
export class GetWebView {
  constructor(
    @inject(Repositories) private readonly repositories: Repositories,
    @inject(Templates) private readonly templates: Templates,
    @inject(HtmlReader) private readonly reader: HtmlReader,
    @inject(PublicLinks) private readonly links: PublicLinks,
  ) {}

  async execute(input: { token: string }): Promise<BrowserCopy | null> {
    const recipientId = webViewTokenRecipient(input.token);
    if (recipientId === null) return null;
    const recipient = await this.repositories.recipients.findTracked(recipientId);
    if (recipient === null || recipient.secret === null || !verifyWebViewToken(recipient.secret, input.token)) return null;
    const broadcast = await this.repositories.recipients.findBroadcast(recipient.broadcastId);
    if (broadcast === null) return null;
    return renderBrowserCopy({ templates: this.templates, reader: this.reader }, broadcast, recipient.subscriber, this.links.webView(input.token));
  }
}
