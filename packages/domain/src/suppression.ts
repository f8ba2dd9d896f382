/** Why an address is on a suppression list (docs/suppressions.md). */
export const SUPPRESSION_REASONS = ['manual', 'bounce', 'complaint'] as const;
export type SuppressionReason = (typeof SUPPRESSION_REASONS)[number];

/** The channel's own list, or the installation-wide one. */
export type SuppressionScope = 'channel' | 'global';

/** At most this many addresses in one bulk add or remove. */
export const SUPPRESSION_BULK_LIMIT = 10_000;

/** Suppression lists page like subscribers: 250 a page. */
export const SUPPRESSIONS_PAGE_SIZE = 250;
