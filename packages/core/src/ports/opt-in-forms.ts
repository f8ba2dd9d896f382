import type { Page } from './entities/page';
import type {
  BlockPlacement,
  NewOptInForm,
  OptInForm,
  OptInFormBlockWrite,
  OptInFormChanges,
  OptInFormCounters,
  OptInFormDailyCounters,
  OptInFormListFilter,
} from './entities/opt-in-form';

/**
 * Opt-in forms, their blocks and their counters (docs/opt-in-forms.md). A variant is a form too:
 * every look-up answers variants as well as main forms, each with both block lists.
 */
export interface OptInFormRepository {
  /** By its public identifier, in any channel; null when none (or not a UUID). */
  findByIdentifier(identifier: string): Promise<OptInForm | null>;
  /** Scoped to the channel: another channel's form is null. `forUpdate` locks the row. */
  findById(channelId: number, id: number, options?: { forUpdate?: boolean }): Promise<OptInForm | null>;
  /** The variants of a main form, oldest first. */
  variantsOf(formId: number): Promise<OptInForm[]>;
  /** Main forms only, oldest first. */
  list(channelId: number, filter: OptInFormListFilter, page: Page): Promise<{ items: OptInForm[]; total: number }>;
  /** The form and its blocks. */
  create(channelId: number, form: NewOptInForm, now: Date): Promise<OptInForm>;
  update(channelId: number, id: number, changes: OptInFormChanges, now: Date): Promise<OptInForm>;
  /**
   * Makes one block list of a form exactly `blocks`: those with an id of that list are updated,
   * those without are inserted, the list's other blocks are deleted.
   */
  saveBlocks(formId: number, placement: BlockPlacement, blocks: readonly OptInFormBlockWrite[], now: Date): Promise<void>;
  /** The form, its variants, blocks and counters. */
  delete(channelId: number, id: number): Promise<void>;
  /** Number of variants per main form. */
  variantCounts(formIds: readonly number[]): Promise<Map<number, number>>;
  /** All-time counters per form (zeros when none). */
  counters(formIds: readonly number[]): Promise<Map<number, OptInFormCounters>>;
  /** Counters per form and UTC day within [from, to] (YYYY-MM-DD), days without any left out. */
  dailyCounters(formIds: readonly number[], from: string, to: string): Promise<OptInFormDailyCounters[]>;
  /** Ids of the channel's forms (variants too) whose automation enrols in the sequence. */
  enrollingInto(channelId: number, sequenceId: number): Promise<number[]>;
  /** Those of `ids` that are topics of the channel. */
  existingTopics(channelId: number, ids: readonly number[]): Promise<number[]>;
}
export const OptInFormRepository = Symbol.for('mailcast.OptInFormRepository');
