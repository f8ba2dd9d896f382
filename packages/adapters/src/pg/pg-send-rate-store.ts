import type { SendRateChange, SendRateStore } from '@mailcast/core';
import type { HoldsByOwner, SendHolds, SendRateState } from '@mailcast/domain';
import type { Knex } from 'knex';
import { prepared } from './database';

interface Row {
  version: string;
  tat: number;
  long_tat: number;
  throttle_rate: number | null;
  throttle_ceiling: number | null;
  throttled_at: number | null;
  holds: Record<string, StoredHolds>;
  /** clock_timestamp() in epoch milliseconds: the database's clock when the row was read or written. */
  db_now: number;
}

interface Known {
  version: string;
  state: SendRateState;
}

/**
 * Holds as stored: with `open`, the count of open permits, beside their slot instants, for
 * dispatchers of the release before (they knew only the count) while both run during an upgrade.
 */
type StoredHolds = Omit<SendHolds, 'opens'> & { opens?: number[]; open?: number };

/** Permits written by a dispatcher that knew only their count are taken as open since ever. */
const fromStored = (holds: Record<string, StoredHolds>): HoldsByOwner =>
  Object.fromEntries(
    Object.entries(holds).map(([id, h]) => [id, { opens: h.opens ?? new Array<number>(h.open ?? 0).fill(0), until: h.until, releases: h.releases }]),
  );

const toStored = (holds: HoldsByOwner): Record<string, StoredHolds> =>
  Object.fromEntries(Object.entries(holds).map(([id, h]) => [id, { ...h, open: h.opens.length }]));

const toState = (row: Row): SendRateState => ({
  tat: row.tat,
  longTat: row.long_tat,
  throttleRate: row.throttle_rate,
  throttleCeiling: row.throttle_ceiling,
  throttledAt: row.throttled_at,
  holds: fromStored(row.holds),
});

const DB_NOW = `extract(epoch from clock_timestamp()) * 1000 AS db_now`;
const MAX_TRIES = 50;
/** How fast two clocks may drift apart: 100 ppm, far beyond an NTP-disciplined clock's. */
const CLOCK_DRIFT = 1e-4;
/**
 * Date.now() reads whole milliseconds: each end of a trip may have been read up to 1 ms before
 * its real instant, so a trip read as S..E ran within [S, E + 1) and its middle may be off by
 * up to (E - S) / 2 + 1, not (E - S) / 2 (a loopback trip of 0.3 ms reads as 0 ms).
 */
const CLOCK_READ_MS = 1;

/**
 * email_server_send_rates, changed by compare-and-set on `version`: one round trip per change
 * while this process holds the latest version (the usual case with one dispatcher per server),
 * two more when another wrote since. Times are on the database's clock; the offset from this
 * process's clock is measured at each round trip, taking the database's instant as the middle
 * of the trip (docs/sending-limits.md).
 */
export class PgSendRateStore implements SendRateStore {
  private readonly known = new Map<number, Known>();
  private offsetMs = 0;
  private bestUncertaintyMs = 0;
  private measuredAt = 0;
  private measured = false;

  constructor(private readonly db: Knex) {}

  async change<T>(
    serverId: number,
    change: (state: SendRateState, now: number) => SendRateChange<T>,
  ): Promise<{ result: T; offsetMs: number; uncertaintyMs: number }> {
    for (let attempt = 0; attempt < MAX_TRIES; attempt++) {
      let known = this.known.get(serverId);
      if (known === undefined || !this.measured) known = await this.read(serverId);
      const { state, result } = change(known.state, Date.now() + this.offsetMs);
      if (state === null) return { result, offsetMs: this.offsetMs, uncertaintyMs: this.uncertainty() };
      const written = await this.write(serverId, known.version, state);
      if (written) return { result, offsetMs: this.offsetMs, uncertaintyMs: this.uncertainty() };
      this.known.delete(serverId);
    }
    throw new Error(`Sending rate of email server ${serverId}: ${MAX_TRIES} conflicting writes in a row`);
  }

  private async read(serverId: number): Promise<Known> {
    const started = Date.now();
    const { rows } = await prepared(
      'send_rate_read',
      this.db.raw<{ rows: Row[] }>(
        `INSERT INTO email_server_send_rates (email_server_id) VALUES (:serverId)
         ON CONFLICT (email_server_id) DO UPDATE SET version = email_server_send_rates.version
         RETURNING version, tat, long_tat, throttle_rate, throttle_ceiling, throttled_at, holds, ${DB_NOW}`,
        { serverId },
      ),
    );
    const row = rows[0]!;
    this.measure(started, row.db_now);
    const known = { version: String(row.version), state: toState(row) };
    this.known.set(serverId, known);
    return known;
  }

  private async write(serverId: number, version: string, state: SendRateState): Promise<boolean> {
    const started = Date.now();
    const { rows } = await prepared(
      'send_rate_write',
      this.db.raw<{ rows: Row[] }>(
        `UPDATE email_server_send_rates
            SET version = version + 1, tat = :tat, long_tat = :longTat, throttle_rate = :throttleRate,
                throttle_ceiling = :throttleCeiling, throttled_at = :throttledAt, holds = CAST(:holds AS jsonb)
          WHERE email_server_id = :serverId AND version = :version
         RETURNING version, ${DB_NOW}`,
        {
          serverId,
          version,
          tat: state.tat,
          longTat: state.longTat,
          throttleRate: state.throttleRate,
          throttleCeiling: state.throttleCeiling,
          throttledAt: state.throttledAt,
          holds: JSON.stringify(toStored(state.holds)),
        },
      ),
    );
    const row = rows[0];
    if (row === undefined) return false;
    this.measure(started, row.db_now);
    this.known.set(serverId, { version: String(row.version), state });
    return true;
  }

  /**
   * Keeps the offset of the round trip that bounds it best: half the trip is how far it may be
   * off, plus the drift two clocks may gather since (docs/sending-limits.md).
   */
  private measure(started: number, dbNow: number): void {
    const ended = Date.now();
    const uncertainty = (ended - started) / 2 + CLOCK_READ_MS;
    if (this.measured && uncertainty >= this.uncertainty(ended)) return;
    this.offsetMs = Number(dbNow) - (started + ended) / 2;
    this.bestUncertaintyMs = uncertainty;
    this.measuredAt = ended;
    this.measured = true;
  }

  private uncertainty(now = Date.now()): number {
    return this.bestUncertaintyMs + Math.max(0, now - this.measuredAt) * CLOCK_DRIFT;
  }
}
