import type { VariantFigures } from '@mailcast/domain';

/**
 * A broadcast's subject test in the database (docs/subject-tests.md): the sample drawn among its
 * recipients, the rest held, the figures of each part, and the winner recorded once.
 */
export interface SubjectTestStore {
  /** The broadcast's pending recipients (the count the sample is a share of). */
  countPending(broadcastId: number): Promise<number>;
  /**
   * Draws `perVariant` random pending recipients for each of `variants` subjects (ab_variant
   * 0..variants-1) and holds every other pending recipient (next_attempt_at 'infinity'), in one
   * statement, only if no sample was drawn yet (a rerun of queueing draws nothing). Answers how
   * many were held, or null when a sample already existed.
   */
  draw(broadcastId: number, variants: number, perVariant: number): Promise<number | null>;
  /** When the winner is due (set once, when sending starts). */
  setDecideAt(broadcastId: number, at: Date): Promise<void>;
  /** That instant; null before sending started. */
  decideAt(broadcastId: number): Promise<Date | null>;
  /** Each part's figures, index = subject (human opens and clicks per docs/engagement.md). */
  figures(broadcastId: number, variants: number): Promise<VariantFigures[]>;
  /** Records the winner only while none is recorded; true when this call recorded it. */
  recordWinner(broadcastId: number, winner: number, at: Date): Promise<boolean>;
  /** Releases the held recipients (one set-based UPDATE); answers how many. */
  releaseHeld(broadcastId: number): Promise<number>;
}
