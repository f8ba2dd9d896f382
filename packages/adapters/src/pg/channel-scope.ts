import type { Knex } from 'knex';

/**
 * The rule that keeps the path to Citus open (docs/capacity.md, "Channel scope"): every table the
 * product writes carries `channel_id`, and every unique key (primary keys and unique indexes,
 * which a distributed table can only enforce when they hold the distribution column) includes it.
 */
export interface ChannelScopeViolation {
  table: string;
  /** `channel_id` for a table without the column, else the unique index's name. */
  key: string;
  reason: string;
}

/** An allowed violation: a table (key `*` for all of its keys) or one of its unique keys. */
export interface ChannelScopeException {
  table: string;
  key: string;
}

/** Every violation in the schema (public by default), whether or not an exception allows it. */
export async function channelScopeViolations(db: Knex, schema = 'public'): Promise<ChannelScopeViolation[]> {
  const tables = await db.raw<{ rows: { table: string; scoped: boolean }[] }>(
    `SELECT c.relname AS table,
            EXISTS (SELECT 1 FROM pg_attribute a WHERE a.attrelid = c.oid AND a.attname = 'channel_id' AND NOT a.attisdropped) AS scoped
       FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
      WHERE n.nspname = ? AND c.relkind IN ('r', 'p') AND NOT c.relispartition
      ORDER BY c.relname`,
    [schema],
  );
  const keys = await db.raw<{ rows: { table: string; key: string; primary: boolean; columns: string | null }[] }>(
    `SELECT t.relname AS table, i.relname AS key, x.indisprimary AS primary,
            (SELECT string_agg(a.attname, ', ' ORDER BY k.ord)
               FROM unnest(x.indkey) WITH ORDINALITY k(attnum, ord)
               JOIN pg_attribute a ON a.attrelid = t.oid AND a.attnum = k.attnum) AS columns
       FROM pg_index x
       JOIN pg_class i ON i.oid = x.indexrelid
       JOIN pg_class t ON t.oid = x.indrelid
       JOIN pg_namespace n ON n.oid = t.relnamespace
      WHERE n.nspname = ? AND x.indisunique AND t.relkind IN ('r', 'p') AND NOT t.relispartition
        AND NOT EXISTS (SELECT 1 FROM unnest(x.indkey) k(attnum)
                          JOIN pg_attribute a ON a.attrelid = t.oid AND a.attnum = k.attnum
                         WHERE a.attname = 'channel_id')
      ORDER BY t.relname, i.relname`,
    [schema],
  );
  const violations: ChannelScopeViolation[] = [];
  for (const t of tables.rows) {
    if (!t.scoped) violations.push({ table: t.table, key: 'channel_id', reason: 'has no channel_id column' });
  }
  for (const k of keys.rows) {
    // An expression index has attnum 0 in indkey: its columns read as null or partial.
    const what = k.primary ? 'primary key' : 'unique index';
    violations.push({ table: k.table, key: k.key, reason: `${what} (${k.columns ?? 'an expression'}) does not include channel_id` });
  }
  return violations;
}

/** The violations no exception allows, and the exceptions that no longer match anything (stale). */
export function unexcepted(
  violations: readonly ChannelScopeViolation[],
  exceptions: readonly ChannelScopeException[],
): { failing: ChannelScopeViolation[]; stale: ChannelScopeException[] } {
  const allows = (e: ChannelScopeException, v: ChannelScopeViolation) => e.table === v.table && (e.key === '*' || e.key === v.key);
  return {
    failing: violations.filter((v) => !exceptions.some((e) => allows(e, v))),
    stale: exceptions.filter((e) => !violations.some((v) => allows(e, v))),
  };
}

/**
 * The exception list as docs/capacity.md keeps it: the rows of the table under the heading
 * "Exceptions to the channel scope", `| table | key | reason |`, so the list and its reasons are
 * one text and cannot drift apart. A row without a reason is refused.
 */
export function parseChannelScopeExceptions(markdown: string): ChannelScopeException[] {
  const start = markdown.search(/^#+ Exceptions to the channel scope\s*$/m);
  if (start === -1) throw new Error('docs/capacity.md has no "Exceptions to the channel scope" heading');
  const lines = markdown.slice(start).split('\n').slice(1);
  const exceptions: ChannelScopeException[] = [];
  let inTable = false;
  for (const line of lines) {
    if (/^#+ /.test(line)) break;
    if (!line.startsWith('|')) {
      if (inTable) break;
      continue;
    }
    inTable = true;
    const cells = line
      .split('|')
      .slice(1, -1)
      .map((c) => c.trim().replace(/^`|`$/g, ''));
    if (cells[0] === 'Table' || /^-+$/.test(cells[0] ?? '')) continue;
    const [table, key, reason] = cells;
    if (!table || !key || !reason) throw new Error(`exception row without a table, key and reason: ${line}`);
    exceptions.push({ table, key });
  }
  return exceptions;
}
