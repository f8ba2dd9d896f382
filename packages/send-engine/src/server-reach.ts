const BUCKETS = 10;

/**
 * One email server as this process has seen it answer (docs/sending-limits.md): a server that
 * could not be reached is left out, with a probe after a backoff that doubles while probes fail;
 * and how many messages went to it over the last second, the rate a throttling answer halves.
 */
export class ServerReach {
  /** Sends per tenth of a second over the last second. */
  private readonly sends = new Array<number>(BUCKETS).fill(0);
  private bucketAt = 0;
  private downUntil = 0;
  private backoff = 0;
  private probing = false;

  /** @param backoffMs the first and the longest wait before an unreachable server is tried again */
  constructor(private readonly backoffMs: readonly [number, number]) {}

  /** A message goes to the server now; answers whether it is the probe of a server that was away. */
  sending(now: number): boolean {
    this.roll(now);
    this.sends[Math.floor(now / 100) % BUCKETS]!++;
    if (!this.available(now) || this.downUntil === 0) return false;
    this.probing = true;
    return true;
  }

  /** Whether this server takes messages: it answers, or its probe is due and none is out. */
  available(now: number): boolean {
    return this.downUntil === 0 || (now >= this.downUntil && !this.probing);
  }

  /** The server answered (whatever it said). */
  reached(): void {
    this.downUntil = 0;
    this.backoff = 0;
    this.probing = false;
  }

  /**
   * The server could not be reached. The wait before the next probe doubles when the probe
   * fails; other messages that were in flight when it went away leave it as it is.
   */
  unreachable(now: number, wasProbe: boolean): void {
    if (this.downUntil !== 0 && !wasProbe) return;
    const [first, longest] = this.backoffMs;
    this.backoff = this.backoff === 0 ? first : Math.min(longest, this.backoff * 2);
    this.downUntil = now + this.backoff;
    this.probing = false;
  }

  private roll(now: number): void {
    const bucket = Math.floor(now / 100);
    for (let b = Math.max(this.bucketAt + 1, bucket - BUCKETS + 1); b <= bucket; b++) this.sends[b % BUCKETS] = 0;
    this.bucketAt = Math.max(this.bucketAt, bucket);
  }

  observedRate(now: number): number {
    this.roll(now);
    return this.sends.reduce((a, b) => a + b, 0);
  }
}
