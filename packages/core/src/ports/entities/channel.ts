import type { Permission } from '@mailcast/domain';

export interface Channel {
  id: number;
  name: string;
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
  channelId: number;
  permissions: Permission[];
  revokedAt: Date | null;
}

export interface EmailServer {
  id: number;
  channelId: number;
  host: string;
  port: number;
  secure: boolean;
  username: string | null;
  password: string | null;
  fromEmail: string | null;
  fromName: string | null;
  /** Sending limits for every dispatcher together; null or absent: none (docs/sending-limits.md). */
  maxPerSecond?: number | null;
  maxPerMinute?: number | null;
  maxPerHour?: number | null;
  maxPerDay?: number | null;
}

export type NewEmailServer = Omit<EmailServer, 'id'>;
