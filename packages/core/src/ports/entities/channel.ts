import type { ApiTokenType, Permission, SmtpTls } from '@mailcast/domain';

export interface Channel {
  id: number;
  name: string;
  /** Unique; names the channel in public URLs (docs/archive.md, Channel slugs). */
  slug: string;
  fromEmail: string | null;
  fromName: string | null;
  trackOpens: boolean;
  trackClicks: boolean;
  createdAt: Date;
}

export interface NewChannel {
  name: string;
  fromEmail?: string | null;
  fromName?: string | null;
}

export interface ApiTokenRecord {
  id: number;
  /** null for an admin (cross-channel) token, which names a channel per request (docs/auth.md). */
  channelId: number | null;
  type: ApiTokenType;
  label: string | null;
  permissions: Permission[];
  revokedAt: Date | null;
}

/** What whoami shows of a token (docs/discovery.md): never the token, never its hash. */
export interface ApiTokenDetails extends ApiTokenRecord {
  /** The first characters kept at creation (`mc_` + 6). */
  prefix: string;
  /** The last four characters; null for a token created before they were kept. */
  suffix: string | null;
  lastUsedAt: Date | null;
}

/** An email server with its secrets in the clear: repositories seal them at rest. */
export interface EmailServer {
  id: number;
  channelId: number;
  name: string | null;
  host: string;
  port: number;
  tls: SmtpTls;
  username: string | null;
  password: string | null;
  fromEmail: string | null;
  fromName: string | null;
  active: boolean;
  /** Per-server sending limits shared by every dispatcher; null: no limit. */
  maxPerSecond: number | null;
  maxPerMinute: number | null;
  maxPerHour: number | null;
  maxPerDay: number | null;
  /** The domain and selector may be set before a key is generated; null key: not signed. */
  dkimDomain: string | null;
  dkimSelector: string | null;
  dkimPrivateKey: string | null;
  /** Set: broadcast emails go out with a VERP envelope sender at this domain (docs/bounces.md). */
  bounceDomain: string | null;
  /**
   * Why the reputation guard took the server out of rotation (docs/reputation-guard.md):
   * `hard_bounce_rate` or `complaint_rate`; null while active or switched off by a person.
   */
  deactivatedReason?: string | null;
  createdAt: Date;
  updatedAt: Date;
}

/** What a server has where its creator said nothing: no name, active, no limits, not signed. */
export const EMAIL_SERVER_DEFAULTS = {
  name: null,
  active: true,
  maxPerSecond: null,
  maxPerMinute: null,
  maxPerHour: null,
  maxPerDay: null,
  dkimDomain: null,
  dkimSelector: null,
  dkimPrivateKey: null,
  bounceDomain: null,
} as const satisfies Partial<EmailServer>;

type EmailServerOptional = keyof typeof EMAIL_SERVER_DEFAULTS;

export type NewEmailServer = Omit<EmailServer, 'id' | 'createdAt' | 'updatedAt' | EmailServerOptional> & Partial<Pick<EmailServer, EmailServerOptional>>;

export type EmailServerChanges = Partial<Omit<EmailServer, 'id' | 'channelId' | 'createdAt' | 'updatedAt'>>;
