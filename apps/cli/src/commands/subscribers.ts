import {
  checkImportHeader,
  ImportSubscribers,
  PURGE_BATCH_DEFAULT,
  PURGE_BATCH_MAX,
  PurgeSubscribers,
  ValidationError,
  type ImportRecord,
  type ImportSummary,
} from '@mailcast/core';
import { SingleBar } from 'cli-progress';
import { parse } from 'csv-parse';
import { createReadStream } from 'node:fs';
import { stat } from 'node:fs/promises';
import { optionalPositiveInteger, positiveInteger, required, UsageError, type Command } from './command';

interface ParsedRecord {
  record: Record<string, string | undefined>;
  info: { lines: number; bytes: number };
}

const count = (text: string, part: string) => text.split(part).length - 1;

/** Streams the file's records; never holds more than csv-parse's buffer in memory. */
async function* readRecords(path: string, onBytes: (bytes: number) => void): AsyncGenerator<ImportRecord> {
  const parser = createReadStream(path).pipe(
    parse({
      columns: (header: string[]) => {
        checkImportHeader(header);
        return header;
      },
      bom: true,
      info: true,
      skip_empty_lines: true,
      // A short or long row is judged by its cells, never a reason to stop the whole import.
      relax_column_count: true,
    }),
  );
  // info.lines is the line a record ends on, but csv-parse 6 counts a CRLF inside a quoted cell
  // as two lines; those extra counts are taken off so that the reported line is where the
  // record starts, as an editor shows it.
  let overcounted = 0;
  for await (const { record, info } of parser as AsyncIterable<ParsedRecord>) {
    onBytes(info.bytes);
    let inner = 0;
    for (const value of Object.values(record)) {
      if (value === undefined) continue;
      inner += count(value, '\n');
      overcounted += count(value, '\r\n');
    }
    yield { line: info.lines - overcounted - inner, cells: record };
  }
}

const asJson = (s: ImportSummary) => ({
  created: s.created,
  updated: s.updated,
  unchanged: s.unchanged,
  refused: { count: s.refused.count, rows: s.refused.rows },
});

function human(file: string, s: ImportSummary): string {
  const lines = [`imported ${file}: ${s.created} created, ${s.updated} updated, ${s.unchanged} unchanged, ${s.refused.count} refused`];
  for (const r of s.refused.rows) lines.push(`  line ${r.line}: ${r.email === '' ? '(no email)' : r.email}: ${r.reason}`);
  if (s.refused.count > s.refused.rows.length) lines.push(`  ... and ${s.refused.count - s.refused.rows.length} more`);
  return lines.join('\n');
}

/**
 * `subscribers import --channel ID FILE.csv`: a header row naming the columns (email required;
 * first_name, last_name, ip_address, tags, subscribed_at; anything else is custom data), upserted
 * in batches with a progress bar over the bytes read.
 */
export const subscribersImport: Command = {
  usage: 'subscribers import --channel ID FILE.csv',
  flags: { channel: { type: 'string' } },
  positional: 'file',
  async run(container, flags, io) {
    const channelId = positiveInteger(flags, 'channel');
    const file = required(flags, 'file');
    const size = await stat(file).then(
      (s) => {
        if (!s.isFile()) throw new ValidationError(`${file} is not a file`);
        return s.size;
      },
      (error: NodeJS.ErrnoException) => {
        throw new ValidationError(error.code === 'ENOENT' ? `File not found: ${file}` : `Cannot read ${file}: ${error.message}`);
      },
    );
    const bar = new SingleBar({
      stream: io.progress,
      format: 'import [{bar}] {percentage}% | {created} created, {updated} updated, {refused} refused',
      hideCursor: io.progress.isTTY === true,
      noTTYOutput: true,
      notTTYSchedule: 2_000,
    });
    let bytes = 0;
    bar.start(Math.max(size, 1), 0, { created: 0, updated: 0, refused: 0 });
    try {
      const summary = await container.resolve(ImportSubscribers).execute({
        channelId,
        records: readRecords(file, (b) => (bytes = b)),
        onProgress: (s) => bar.update(Math.min(bytes, size), { created: s.created, updated: s.updated, refused: s.refused.count }),
      });
      bar.update(Math.max(size, 1));
      return { json: asJson(summary), human: human(file, summary) };
    } catch (error) {
      // csv-parse's own errors (an unclosed quote) name the line; batches before it are kept.
      if ((error as { code?: string }).code?.startsWith('CSV_') === true) {
        throw new ValidationError(`${file}: ${(error as Error).message}`);
      }
      throw error;
    } finally {
      bar.stop();
    }
  },
};

/**
 * `subscribers purge --channel ID --confirm [--batch-size N]`: deletes every subscriber of the
 * channel (docs/subscribers.md, "Purge"). Without --confirm nothing is touched: it cannot be undone.
 */
export const subscribersPurge: Command = {
  usage: `subscribers purge --channel ID --confirm [--batch-size N (1..${PURGE_BATCH_MAX}, default ${PURGE_BATCH_DEFAULT})]`,
  flags: { channel: { type: 'string' }, confirm: { type: 'boolean' }, 'batch-size': { type: 'string' } },
  async run(container, flags, io) {
    const channelId = positiveInteger(flags, 'channel');
    if (flags.confirm !== true) {
      throw new UsageError(`subscribers purge deletes every subscriber of channel ${channelId} and cannot be undone; add --confirm to go ahead`);
    }
    const batchSize = optionalPositiveInteger(flags, 'batch-size') ?? PURGE_BATCH_DEFAULT;
    if (batchSize > PURGE_BATCH_MAX) throw new UsageError(`--batch-size must be at most ${PURGE_BATCH_MAX}`);
    const { count } = await container.resolve(PurgeSubscribers).execute({
      channelId,
      batchSize,
      onProgress: (deleted) => {
        if (io.progress.isTTY === true) io.progress.write(`purge: ${deleted} deleted\r`);
      },
    });
    return { json: { broadcast_channel_id: channelId, purged: count }, human: `purged channel ${channelId}: ${count} subscribers deleted` };
  },
};
