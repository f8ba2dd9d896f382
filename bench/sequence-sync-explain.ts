/**
 * Where the segment sync's time goes (docs/sequences.md, "init_segment_id"), by EXPLAIN
 * (ANALYZE, BUFFERS) in one run: the bare INSERT … SELECT of the members, the sync's statement
 * with the outbox's old channel foreign key put back, and the sync's statement as migrated (no
 * key), alternately, each into an emptied and vacuumed table. The sync runs in ranges of
 * subscriber ids; explained, its first range's statement stands for it (an explained range
 * reports nothing synced, so the sync stops there): keep SYNC_EXPLAIN_MEMBERS within one range
 * (100,000) to compare like with like. Run:
 * `npx ts-node --transpile-only -P bench/tsconfig.json bench/sequence-sync-explain.ts`
 * (SYNC_EXPLAIN_MEMBERS, default 100,000; SYNC_EXPLAIN_ROUNDS, default 2).
 */
import { createBoss, createLogger, loadConfig, PgSegmentRepository, PgSequenceRuntime, secretBoxFor } from '@mailcast/adapters';
import { parseSegmentDefinition } from '@mailcast/domain';
import type { Knex } from 'knex';
import { Fixtures } from '../packages/testkit/src/fixtures';
import { openBenchPostgres } from './harness';

const MEMBERS = Number(process.env.SYNC_EXPLAIN_MEMBERS ?? 100_000);
const ROUNDS = Number(process.env.SYNC_EXPLAIN_ROUNDS ?? 2);
const SENDABLE = `s.is_active AND (NOT s.requires_confirmation OR s.confirmed_at IS NOT NULL) AND s.redacted_at IS NULL`;

/** The plan's execution time and its trigger lines (the referential checks). */
function summary(plan: string): string {
  const lines = plan.split('\n');
  if (process.env.SYNC_EXPLAIN_FULL === '1') return plan;
  const keep = lines.filter((l) => /Execution Time|Trigger|Buffers: shared/.test(l) && !/^\s{6,}/.test(l));
  return keep.map((l) => `    ${l.trim()}`).join('\n');
}

async function main() {
  const pg = await openBenchPostgres();
  try {
    const { url, db } = await pg.context((m) => console.log(m)).database();
    const fixtures = new Fixtures(db, createBoss(url, 'api'));
    const [channel] = await db('channels').insert({ name: 'sync-explain', from_email: 'news@bench.test' }).returning('id');
    await db.raw(
      `INSERT INTO subscribers (channel_id, email, first_name, tags) SELECT ?, 's' || g || '@bench.test', 'S' || g, ARRAY['member'] FROM generate_series(1, ?) g`,
      [channel.id, MEMBERS],
    );
    const parsed = parseSegmentDefinition('all', [{ field: 'tags', operator: 'includes', value: 'member' }]);
    if ('errors' in parsed) throw new Error(JSON.stringify(parsed.errors));
    const segment = await new PgSegmentRepository(db).create(
      { channelId: channel.id, name: 'members', description: null, definition: parsed.definition },
      new Date(),
    );
    await db.raw('VACUUM ANALYZE subscribers');
    const delay = [{ action: 'delay' as const, settings: { delay: 30 * 86_400 } }];
    const bare = await fixtures.aSequence(channel.id, delay, { label: 'bare', active: false });

    let plan = '';
    // The runtime's statement, explained instead of run: the sync's own SQL, unchanged.
    const explainingOf = <T extends Knex | Knex.Transaction>(on: T): T =>
      new Proxy(on, {
        get(target, key, receiver) {
          if (key === 'transaction')
            return (work: (trx: Knex.Transaction) => Promise<unknown>) => (target as Knex).transaction((trx) => work(explainingOf(trx)));
          if (key !== 'raw') return Reflect.get(target, key, receiver);
          return (sql: string, bindings?: unknown) => {
            if (!sql.startsWith('WITH entry AS')) return target.raw(sql, bindings as Knex.RawBinding);
            if (process.env.SYNC_EXPLAIN_PLAN_ONLY === '1') {
              return target.raw(`EXPLAIN ${sql}`, bindings as Knex.RawBinding).then((r: { rows: Array<Record<string, string>> }) => {
                console.log(r.rows.map((row) => row['QUERY PLAN']).join('\n'));
                return { rows: [{ count: 0 }] };
              });
            }
            return target.raw(`EXPLAIN (ANALYZE, BUFFERS) ${sql}`, bindings as Knex.RawBinding).then((r: { rows: Array<Record<string, string>> }) => {
              plan = r.rows.map((row) => row['QUERY PLAN']).join('\n');
              return { rows: [{ count: 0 }] };
            });
          };
        },
      });
    const runtime = new PgSequenceRuntime(
      explainingOf(db),
      secretBoxFor(loadConfig(process.env), createLogger({ level: 'warn', production: false, service: 'bench' })),
    );
    const empty = async () => {
      await db.raw('DELETE FROM events');
      await db.raw('DELETE FROM subscriber_sequences');
      await db.raw('VACUUM ANALYZE subscriber_sequences');
      await db.raw('VACUUM ANALYZE events');
      await db.raw('CHECKPOINT');
    };
    const sync = async (label: string) => {
      const sequence = (await fixtures.aSequence(channel.id, delay, { label, initSegmentId: segment.id })).sequence;
      await db.raw('CHECKPOINT');
      await runtime.enrolSegment(sequence, parsed.definition, new Date());
      return plan;
    };
    for (let round = 1; round <= ROUNDS; round++) {
      await empty();
      const { rows } = await db.raw<{ rows: Array<Record<string, string>> }>(
        `EXPLAIN (ANALYZE, BUFFERS) INSERT INTO subscriber_sequences (sequence_id, subscriber_id, channel_id, status, started_at, next_trigger_at, current_step_id, created_at, updated_at)
         SELECT ?, s.id, s.channel_id, 'active', now(), now(), ?, now(), now() FROM subscribers s
          WHERE s.channel_id = ? AND s.tags @> ARRAY['member'] AND ${SENDABLE}`,
        [bare.sequence.id, bare.entry, channel.id],
      );
      console.log(`round ${round}, bare INSERT … SELECT of ${MEMBERS}:\n${summary(rows.map((r) => r['QUERY PLAN']).join('\n'))}`);
      await empty();
      await db.raw('ALTER TABLE events ADD CONSTRAINT events_channel_id_foreign FOREIGN KEY (channel_id) REFERENCES channels(id) ON DELETE CASCADE');
      console.log(`round ${round}, sync with the outbox's channel key:\n${summary(await sync(`keyed ${round}`))}`);
      await db.raw('ALTER TABLE events DROP CONSTRAINT events_channel_id_foreign');
      await empty();
      console.log(`round ${round}, sync as migrated (no key):\n${summary(await sync(`unkeyed ${round}`))}`);
    }
  } finally {
    await pg.close();
  }
}

void main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
