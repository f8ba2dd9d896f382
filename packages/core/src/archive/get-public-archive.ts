import { isChannelSlug } from '@mailcast/domain';
import { inject, injectable } from 'tsyringe';
import { BroadcastArchive, HtmlReader, PublicLinks, Repositories, Templates, type Channel } from '../ports';
import { NOBODY, renderArchiveSubject, renderBrowserCopy, type BrowserCopy } from './archive-copy';

/** The archive page and the feed list at most this many broadcasts (docs/archive.md). */
export const ARCHIVE_PAGE_SIZE = 100;
export const ARCHIVE_FEED_SIZE = 20;

export interface ArchivedItem {
  id: number;
  subject: string;
  sentAt: Date;
  url: string;
}

export interface PublicArchive {
  channel: Channel;
  url: string;
  feedUrl: string;
  items: ArchivedItem[];
}

export interface ArchivedCopy extends BrowserCopy {
  channel: Channel;
  id: number;
  sentAt: Date;
  url: string;
  archiveUrl: string;
}

/**
 * The public archive of a channel (docs/archive.md): its list, one broadcast's copy, and the
 * Atom feed's entries. No authentication; every read is scoped to the channel the slug names,
 * and a broadcast that is not archived or has not gone out does not exist here (null → 404).
 */
@injectable()
export class GetPublicArchive {
  constructor(
    @inject(Repositories) private readonly repositories: Repositories,
    @inject(BroadcastArchive) private readonly archive: BroadcastArchive,
    @inject(Templates) private readonly templates: Templates,
    @inject(HtmlReader) private readonly reader: HtmlReader,
    @inject(PublicLinks) private readonly links: PublicLinks,
  ) {}

  private async channel(slug: string): Promise<Channel | null> {
    return isChannelSlug(slug) ? this.repositories.channels.findBySlug(slug) : null;
  }

  async list(input: { slug: string }): Promise<PublicArchive | null> {
    const channel = await this.channel(input.slug);
    if (channel === null) return null;
    const broadcasts = await this.archive.listPublished(channel.id, ARCHIVE_PAGE_SIZE);
    const items: ArchivedItem[] = [];
    for (const b of broadcasts) {
      const url = this.links.archive(channel.slug, String(b.id));
      items.push({ id: b.id, subject: await renderArchiveSubject(this.templates, b, url), sentAt: b.sentAt!, url });
    }
    return { channel, url: this.links.archive(channel.slug), feedUrl: this.links.archive(channel.slug, 'feed.atom'), items };
  }

  async copy(input: { slug: string; id: number }): Promise<ArchivedCopy | null> {
    const channel = await this.channel(input.slug);
    if (channel === null) return null;
    const broadcast = await this.archive.findPublished(channel.id, input.id);
    return broadcast === null ? null : this.render(channel, broadcast);
  }

  /** The newest archived broadcasts with their copies, for the Atom feed. */
  async feed(input: { slug: string }): Promise<{ archive: PublicArchive; entries: ArchivedCopy[] } | null> {
    const channel = await this.channel(input.slug);
    if (channel === null) return null;
    const broadcasts = await this.archive.listPublished(channel.id, ARCHIVE_FEED_SIZE);
    const entries: ArchivedCopy[] = [];
    for (const b of broadcasts) entries.push(await this.render(channel, b));
    const archive = {
      channel,
      url: this.links.archive(channel.slug),
      feedUrl: this.links.archive(channel.slug, 'feed.atom'),
      items: entries.map(({ id, subject, sentAt, url }) => ({ id, subject, sentAt, url })),
    };
    return { archive, entries };
  }

  private async render(channel: Channel, broadcast: Parameters<typeof renderBrowserCopy>[1]): Promise<ArchivedCopy> {
    const url = this.links.archive(channel.slug, String(broadcast.id));
    const copy = await renderBrowserCopy({ templates: this.templates, reader: this.reader }, broadcast, NOBODY, url);
    return { ...copy, channel, id: broadcast.id, sentAt: broadcast.sentAt!, url, archiveUrl: this.links.archive(channel.slug) };
  }
}
