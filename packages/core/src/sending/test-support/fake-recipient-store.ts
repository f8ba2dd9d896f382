import type {
  Broadcast,
  BroadcastLink,
  ClaimedRecipient,
  ClickContext,
  ClickMark,
  EmailEventRecord,
  OutcomeGroup,
  RecipientStore,
  SendOutcomeCounts,
  SendProgress,
  SubscriberSnapshot,
  TrackedRecipient,
} from '../../ports';

const unused = (name: string): never => {
  throw new Error(`FakeRecipientStore.${name} is not faked: the sending pipeline is tested on PostgreSQL`);
};

/**
 * In memory for the tracking and unsubscribe use cases; the set-based sending statements are
 * exercised against PostgreSQL only, so they are not faked.
 */
export class FakeRecipientStore implements RecipientStore {
  readonly recipients: TrackedRecipient[] = [];
  readonly secrets = new Map<number, Uint8Array>();
  readonly links: Array<BroadcastLink & { broadcastId: number }> = [];
  /** The broadcast's tracked links, as markClicked's context counts them. */
  linkCount = 1;

  /** `emailEvents`: where markClicked finds the recipient's earlier clicks. */
  constructor(private readonly emailEvents: { readonly events: ReadonlyArray<EmailEventRecord & { id: number }> } = { events: [] }) {}

  async findTracked(recipientId: number): Promise<(TrackedRecipient & { secret: Uint8Array | null }) | null> {
    const r = this.recipients.find((x) => x.id === recipientId);
    return r ? { ...r, secret: this.secrets.get(r.broadcastId) ?? null } : null;
  }
  async trackingSecret(broadcastId: number, candidate: Uint8Array): Promise<Uint8Array> {
    if (!this.secrets.has(broadcastId)) this.secrets.set(broadcastId, candidate);
    return this.secrets.get(broadcastId)!;
  }
  async findLink(broadcastId: number, identifier: string): Promise<BroadcastLink | null> {
    return this.links.find((l) => l.broadcastId === broadcastId && l.identifier === identifier) ?? null;
  }
  private readonly lastEngaged = new Map<string, Date>();
  async markEngaged(recipientId: number, kind: 'opened' | 'clicked', at: Date, windowStart: Date, linkId?: number): Promise<boolean> {
    const r = this.recipients.find((x) => x.id === recipientId);
    if (!r) return false;
    const key = `${recipientId}:${kind}:${kind === 'clicked' ? (linkId ?? '') : ''}`;
    const last = this.lastEngaged.get(key);
    if (last !== undefined && last > windowStart) return false;
    this.lastEngaged.set(key, at);
    if (kind === 'opened') r.openedAt ??= at;
    else r.clickedAt ??= at;
    return true;
  }
  async markClicked(c: ClickMark): Promise<ClickContext | null> {
    if (!(await this.markEngaged(c.recipientId, 'clicked', c.at, c.windowStart, c.linkId))) return null;
    const earlierClicks = this.emailEvents.events
      .filter((e) => e.broadcastId === c.broadcastId && e.recipientId === c.recipientId && e.kind === 'clicked' && e.occurredAt >= c.contextSince)
      .map((e) => ({ id: e.id, linkId: e.linkId ?? 0, at: e.occurredAt, machine: e.machine === true }));
    return { linkCount: this.linkCount, earlierClicks };
  }
  async unsubscribeSubscriber(subscriberId: number, now: Date): Promise<SubscriberSnapshot | null> {
    let changed: SubscriberSnapshot | null = null;
    for (const r of this.recipients) {
      const s = r.subscriber;
      if (s.id !== subscriberId || (!s.isActive && s.unsubscribedAt !== null)) continue;
      r.subscriber = changed ??= { ...s, isActive: false, unsubscribedAt: now };
    }
    return changed;
  }

  findBroadcast(): Promise<Broadcast | null> {
    return unused('findBroadcast');
  }
  statusOf(): Promise<null> {
    return unused('statusOf');
  }
  transition(): Promise<Broadcast | null> {
    return unused('transition');
  }
  materialize(): Promise<{ last: number; count: number } | null> {
    return unused('materialize');
  }
  materializeAudience(): Promise<number> {
    return unused('materializeAudience');
  }
  subscriberIdRange(): Promise<{ min: number; max: number } | null> {
    return unused('subscriberIdRange');
  }
  refreshStatistics(): Promise<boolean> {
    return unused('refreshStatistics');
  }
  countRecipients(): Promise<number> {
    return unused('countRecipients');
  }
  setTotalRecipients(): Promise<void> {
    return unused('setTotalRecipients');
  }
  retryFailed(): Promise<number> {
    return unused('retryFailed');
  }
  pendingTimezones(): Promise<string[]> {
    return unused('pendingTimezones');
  }
  timeRecipients(): Promise<number> {
    return unused('timeRecipients');
  }
  claim(..._args: Parameters<RecipientStore['claim']>): Promise<ClaimedRecipient[]> {
    return unused('claim');
  }
  release(): Promise<void> {
    return unused('release');
  }
  extendLeases(): Promise<void> {
    return unused('extendLeases');
  }
  progress(): Promise<SendProgress> {
    return unused('progress');
  }
  outcomeCounts(): Promise<SendOutcomeCounts> {
    return unused('outcomeCounts');
  }
  settleWithEvents(_group: OutcomeGroup): Promise<Set<number>> {
    return unused('settleWithEvents');
  }
  addProgress(): Promise<void> {
    return unused('addProgress');
  }
  saveLinks(): Promise<BroadcastLink[]> {
    return unused('saveLinks');
  }
  deactivateSubscriber(): Promise<SubscriberSnapshot | null> {
    return unused('deactivateSubscriber');
  }
  stalledBroadcasts(): Promise<number[]> {
    return unused('stalledBroadcasts');
  }
}
