import { canonicalEmail, parseCustomDataFilterValue } from '@mailcast/domain';
import { inject, injectable } from 'tsyringe';
import { NotFoundError, ValidationError } from '../errors';
import { Clock, Repositories } from '../ports';

/** One subscriber as an import writes it; null/empty means "not given in the file". */
export interface ImportedSubscriber {
  email: string;
  firstName: string | null;
  lastName: string | null;
  ipAddress: string | null;
  subscribedAt: Date | null;
  tags: string[];
  /** Cells typed as the list filter reads them (numbers, booleans), plus a `custom_data` column's object. */
  customData: Record<string, unknown>;
}

/**
 * Upserts one batch in one statement: new addresses are created with source `import`, existing
 * ones get the given fields merged in, and each change writes its subscriber.created /
 * subscriber.updated event into the outbox in that same statement. Existing subscribers whose
 * fields would not change are left alone and counted as `unchanged` (no event).
 */
export interface SubscriberImporter {
  upsertBatch(channelId: number, rows: readonly ImportedSubscriber[], now: Date): Promise<{ created: number; updated: number; unchanged: number }>;
}
export const SubscriberImporter = Symbol.for('mailcast.SubscriberImporter');

/** A CSV record: its cells by header name, and the file line it ends on. */
export interface ImportRecord {
  line: number;
  cells: Readonly<Record<string, string | undefined>>;
}

export interface RefusedRow {
  line: number;
  email: string;
  reason: string;
}

export interface ImportSummary {
  created: number;
  updated: number;
  unchanged: number;
  refused: { count: number; rows: RefusedRow[] };
}

export const IMPORT_BATCH_SIZE = 1_000;
/** At most this many refused rows are listed; `refused.count` is always the full number. */
export const REFUSED_ROWS_LISTED = 100;

const KNOWN_COLUMNS = new Set(['email', 'first_name', 'last_name', 'ip_address', 'tags', 'subscribed_at']);
const CUSTOM_PREFIX = 'custom_data.';
// Tags are separated by `;`, `|` or `,` inside the cell, so "a; b", "a|b" and "a,b" all work.
const TAG_SEPARATOR = /[;|,]/;
const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;
// ISO 8601 date or date-time; a time without an offset is read as UTC.
const ISO_DATE = /^\d{4}-\d{2}-\d{2}(?:[T ]\d{2}:\d{2}(?::\d{2}(?:\.\d{1,9})?)?(?:Z|[+-]\d{2}:?\d{2})?)?$/i;
const MAX_TEXT = 1_000;

/** Header names are matched trimmed and case-insensitively. */
export const importColumnKey = (header: string): string => header.trim().toLowerCase();

/** Throws when the header row has no email column (nothing could be imported). */
export function checkImportHeader(headers: readonly string[]): void {
  if (!headers.map(importColumnKey).includes('email')) {
    throw new ValidationError('The CSV header has no "email" column');
  }
}

function parseSubscribedAt(raw: string): Date | null | 'invalid' {
  if (raw === '') return null;
  if (!ISO_DATE.test(raw)) return 'invalid';
  // Date rolls 2024-02-31 over into March; a calendar date that does not exist is refused.
  const [y, m, d] = raw.slice(0, 10).split('-').map(Number) as [number, number, number];
  const day = new Date(Date.UTC(y, m - 1, d));
  if (day.getUTCMonth() !== m - 1 || day.getUTCDate() !== d) return 'invalid';
  const hasZone = /(?:Z|[+-]\d{2}:?\d{2})$/i.test(raw) && raw.length > 10;
  const text = raw.length === 10 ? `${raw}T00:00:00Z` : hasZone ? raw : `${raw}Z`;
  const date = new Date(text.replace(' ', 'T'));
  return Number.isNaN(date.getTime()) ? 'invalid' : date;
}

const text = (v: string | undefined): string | null => {
  const t = (v ?? '').trim();
  return t === '' ? null : t;
};

/** The `custom_data` column: a JSON object whose keys are merged in, or the reason it is refused. */
function customDataObject(raw: string): Record<string, unknown> | 'invalid' {
  if (raw.trim() === '') return {};
  try {
    const parsed: unknown = JSON.parse(raw);
    return typeof parsed === 'object' && parsed !== null && !Array.isArray(parsed) ? (parsed as Record<string, unknown>) : 'invalid';
  } catch {
    return 'invalid';
  }
}

/**
 * One CSV record to a subscriber, or the reason it is refused. Unknown columns never fail a
 * row: they become custom_data values (a `custom_data.` prefix is stripped), typed by the list
 * filter's own coercion, `parseCustomDataFilterValue`, so `custom_data[score]=7` finds an
 * imported 7 and the two can never disagree (docs/subscribers.md, "Typed cells"). A column named
 * `custom_data` holds a JSON object whose keys are merged in; named columns win over its keys.
 */
export function parseImportRecord(record: ImportRecord): ImportedSubscriber | { refused: string } {
  const byKey = new Map<string, string>();
  const columns: Record<string, unknown> = {};
  let fromObject: Record<string, unknown> = {};
  for (const [header, value] of Object.entries(record.cells)) {
    if (value === undefined) continue;
    if (value.includes('\u0000')) return { refused: 'contains a NUL character' };
    if (value.includes('\uFFFD') || LONE_SURROGATE.test(value)) return { refused: 'is not valid UTF-8' };
    const key = importColumnKey(header);
    if (KNOWN_COLUMNS.has(key)) byKey.set(key, value);
    else if (key === 'custom_data') {
      const object = customDataObject(value);
      if (object === 'invalid') return { refused: 'custom_data is not a JSON object' };
      fromObject = object;
    } else {
      const name = key.startsWith(CUSTOM_PREFIX) ? header.trim().slice(CUSTOM_PREFIX.length) : header.trim();
      if (name !== '' && value.trim() !== '') columns[name] = parseCustomDataFilterValue(value.trim());
    }
  }
  const customData = { ...fromObject, ...columns };
  const raw = byKey.get('email') ?? '';
  if (raw.trim() === '') return { refused: 'email is missing' };
  const email = canonicalEmail(raw);
  if (email === null) return { refused: 'email is invalid' };
  // A redacted subscriber's placeholder: an import must never bring its data back.
  if (email.endsWith('@redacted.invalid')) return { refused: 'email is reserved for redacted subscribers' };
  const subscribedAt = parseSubscribedAt((byKey.get('subscribed_at') ?? '').trim());
  if (subscribedAt === 'invalid') return { refused: 'subscribed_at is not an ISO 8601 date' };
  const fields = { firstName: text(byKey.get('first_name')), lastName: text(byKey.get('last_name')), ipAddress: text(byKey.get('ip_address')) };
  for (const column of ['first_name', 'last_name', 'ip_address']) {
    const value = byKey.get(column) ?? '';
    if (value.trim().length > MAX_TEXT) return { refused: `${column} is too long` };
  }
  const tags = [
    ...new Set(
      (byKey.get('tags') ?? '')
        .split(TAG_SEPARATOR)
        .map((t) => t.trim())
        .filter((t) => t !== ''),
    ),
  ];
  return { email, ...fields, subscribedAt, tags, customData };
}

/**
 * `subscribers import`: streams records, refuses the invalid ones with their line, and upserts
 * the rest in set-based batches. Each batch is one statement, so a batch and its events commit
 * together; an interrupted import keeps the batches already written and can simply be re-run.
 */
@injectable()
export class ImportSubscribers {
  constructor(
    @inject(Repositories) private readonly repositories: Repositories,
    @inject(SubscriberImporter) private readonly importer: SubscriberImporter,
    @inject(Clock) private readonly clock: Clock,
  ) {}

  async execute(input: { channelId: number; records: AsyncIterable<ImportRecord>; onProgress?: (summary: ImportSummary) => void }): Promise<ImportSummary> {
    if ((await this.repositories.channels.findById(input.channelId)) === null) throw new NotFoundError('Channel not found');
    const summary: ImportSummary = { created: 0, updated: 0, unchanged: 0, refused: { count: 0, rows: [] } };
    const refuse = (line: number, email: string, reason: string) => {
      summary.refused.count += 1;
      if (summary.refused.rows.length < REFUSED_ROWS_LISTED) summary.refused.rows.push({ line, email, reason });
    };
    // The first occurrence of an address wins; later ones are refused, so a file never updates
    // the same subscriber twice and the counts add up to the rows in the file.
    const seen = new Set<string>();
    let batch: ImportedSubscriber[] = [];
    const flush = async () => {
      if (batch.length === 0) return;
      const counts = await this.importer.upsertBatch(input.channelId, batch, this.clock.now());
      summary.created += counts.created;
      summary.updated += counts.updated;
      summary.unchanged += counts.unchanged;
      batch = [];
      input.onProgress?.(summary);
    };
    for await (const record of input.records) {
      const parsed = parseImportRecord(record);
      const rawEmail = (Object.entries(record.cells).find(([h]) => importColumnKey(h) === 'email')?.[1] ?? '').trim();
      if ('refused' in parsed) refuse(record.line, rawEmail, parsed.refused);
      else if (seen.has(parsed.email)) refuse(record.line, rawEmail, 'email appears earlier in the file');
      else {
        seen.add(parsed.email);
        batch.push(parsed);
        if (batch.length >= IMPORT_BATCH_SIZE) await flush();
      }
    }
    await flush();
    input.onProgress?.(summary);
    return summary;
  }
}
