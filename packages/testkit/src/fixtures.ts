import { pgRepositories, type Database } from '@mailcast/adapters';
import {
  issueApiToken,
  SEQUENCE_DEFAULTS,
  type Broadcast,
  type Channel,
  type EmailServer,
  type NewEmailServer,
  type NewBroadcast,
  type NewSubscriber,
  type Subscriber,
  type RandomSource,
  type Repositories,
  type Sequence,
  type SequenceSettings,
} from '@mailcast/core';
import { PERMISSIONS, type Permission, type StepAction, type StepSettings } from '@mailcast/domain';
import { randomBytes } from 'node:crypto';
import type PgBoss from 'pg-boss';
import { appSecretBox } from './secrets';

const random: RandomSource = { bytes: (n) => randomBytes(n) };

/** Builders that seed through the real repositories, so fixtures obey the same rules as the app. */
export class Fixtures {
  readonly repositories: Repositories;

  constructor(db: Database, boss: PgBoss) {
    this.repositories = pgRepositories(db, boss, appSecretBox());
  }

  aChannel(overrides: Partial<{ name: string; fromEmail: string; fromName: string }> = {}): Promise<Channel> {
    return this.repositories.channels.create({ name: 'Test channel', ...overrides });
  }

  async aToken(channelId: number, permissions: readonly Permission[] = PERMISSIONS): Promise<string> {
    return (await issueApiToken(this.repositories, random, { channelId }, [...permissions])).token;
  }

  /** An admin (cross-channel) token (docs/auth.md, Admin tokens). */
  async anAdminToken(permissions: readonly Permission[] = PERMISSIONS): Promise<string> {
    return (await issueApiToken(this.repositories, random, { admin: true }, [...permissions], 'test admin')).token;
  }

  /** A channel and a token with every permission on it. */
  async aTenant(): Promise<{ channel: Channel; token: string }> {
    const channel = await this.aChannel();
    return { channel, token: await this.aToken(channel.id) };
  }

  /**
   * An email server for `channelId` at a test SMTP server on loopback `port`: no TLS, no login,
   * no from address (so the channel's, docs/broadcasts-and-sending.md), unless `overrides` say.
   */
  aCaptureServer(channelId: number, port: number, overrides: Partial<NewEmailServer> = {}): Promise<EmailServer> {
    return this.repositories.emailServers.create({
      channelId,
      host: '127.0.0.1',
      port,
      tls: 'none',
      username: null,
      password: null,
      fromEmail: null,
      fromName: null,
      ...overrides,
    });
  }

  aBroadcast(channelId: number, overrides: Partial<NewBroadcast> = {}, now = new Date()): Promise<Broadcast> {
    return this.repositories.broadcasts.create(
      {
        channelId,
        name: 'Spring newsletter',
        subject: 'Hello {{ subscriber.first_name }}',
        preheader: null,
        body: 'Body',
        htmlBody: null,
        includeUnsubscribeLink: true,
        replyTo: null,
        trackOpens: true,
        trackClicks: true,
        useAnyEmailServer: false,
        emailHeaders: [],
        tags: [],
        segmentIds: [],
        emailServerIds: [],
        scheduledSendAt: null,
        scheduledTimezone: null,
        ...overrides,
      },
      now,
    );
  }

  /** A subscriber inserted directly (not through the API), created at `now`. */
  async aSubscriber(channelId: number, email: string, overrides: Partial<NewSubscriber> = {}, now = new Date()): Promise<Subscriber> {
    const subscriber = await this.repositories.subscribers.insertIfAbsent({ channelId, email, requiresConfirmation: false, ...overrides }, now);
    if (subscriber === null) throw new Error(`subscriber ${email} already exists`);
    return subscriber;
  }

  /**
   * An active sequence whose entry point is followed by `steps`, one after another; answers it, its
   * entry point's id and the steps' ids in order.
   */
  async aSequence(
    channelId: number,
    steps: ReadonlyArray<{ action: StepAction; settings?: StepSettings }>,
    overrides: Partial<SequenceSettings> = {},
    now = new Date(),
  ): Promise<{ sequence: Sequence; entry: number; steps: number[] }> {
    const sequences = this.repositories.sequences;
    const sequence = await sequences.create(channelId, { ...SEQUENCE_DEFAULTS, active: true, ...overrides }, now);
    const [entry] = await sequences.steps(sequence.id);
    const ids: number[] = [];
    let parentId = entry!.id;
    for (const [i, step] of steps.entries()) {
      const made = await sequences.insertStep(
        { sequenceId: sequence.id, action: step.action, label: null, parentId, branch: null, position: i + 1, settings: step.settings ?? {} },
        now,
      );
      ids.push(made.id);
      parentId = made.id;
    }
    return { sequence, entry: entry!.id, steps: ids };
  }
}
