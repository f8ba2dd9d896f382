import {
  ValidationError,
  type Page,
  type Topic,
  type TopicChanges,
  type TopicCounts,
  type TopicRepository,
  type TopicSettings,
  type TopicUsage,
} from '@mailcast/core';
import type { TopicStorage } from '@mailcast/domain';
import type { Knex } from 'knex';
import { audienceChanges, KeptResults } from './count-cache';

/** How long a topic's counts are kept, and up to how many subscribers they are always counted again (docs/topics.md, "Kept counts"). */
export const TOPIC_COUNTS_TTL_MS = 30_000;
export const TOPIC_COUNTS_ALWAYS_EXACT_UP_TO = 1000;

/** The subscribers a topic's counts went over: each has a value (yes, no) or none (unset). */
const countedOf = (c: TopicCounts) => c.yes + c.no + c.unset;

interface TopicRow {
  id: number | string;
  channel_id: number | string;
  name: string;
  description: string | null;
  storage: TopicStorage;
  custom_data_key: string | null;
  tag_name: string | null;
  unset_receives: boolean;
  visible_on_preference_page: boolean;
  position: number;
  created_at: Date;
  updated_at: Date;
}

const toTopic = (row: TopicRow): Topic => ({
  id: Number(row.id),
  channelId: Number(row.channel_id),
  name: row.name,
  description: row.description,
  storage: row.storage,
  customDataKey: row.custom_data_key,
  tagName: row.tag_name,
  unsetReceives: row.unset_receives,
  visibleOnPreferencePage: row.visible_on_preference_page,
  position: row.position,
  createdAt: row.created_at,
  updatedAt: row.updated_at,
});

function columns(s: TopicChanges): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  if (s.name !== undefined) out.name = s.name;
  if (s.description !== undefined) out.description = s.description;
  if (s.storage !== undefined) out.storage = s.storage;
  if (s.customDataKey !== undefined) out.custom_data_key = s.customDataKey;
  if (s.tagName !== undefined) out.tag_name = s.tagName;
  if (s.unsetReceives !== undefined) out.unset_receives = s.unsetReceives;
  if (s.visibleOnPreferencePage !== undefined) out.visible_on_preference_page = s.visibleOnPreferencePage;
  if (s.position !== undefined) out.position = s.position;
  return out;
}

/** The unique indexes of the migration, by the field each guards (docs/topics.md, "The API"). */
const UNIQUE_FIELDS: Record<string, string> = {
  topics_channel_name: 'name',
  topics_channel_key: 'custom_data_key',
  topics_channel_tag: 'tag_name',
};

async function uniqueFields<T>(write: () => Promise<T>): Promise<T> {
  try {
    return await write();
  } catch (error) {
    const e = error as { code?: string; constraint?: string };
    const field = e.code === '23505' && e.constraint !== undefined ? UNIQUE_FIELDS[e.constraint] : undefined;
    if (field !== undefined) throw new ValidationError(`${field} has already been taken by another topic of this channel`);
    throw error;
  }
}

/** Statuses after which a broadcast sends nothing more: it need not keep its topic. */
const FINISHED = ['sent', 'partial_failure', 'aborted'];

export class PgTopicRepository implements TopicRepository {
  constructor(
    private readonly db: Knex,
    private readonly keptCounts = new KeptResults<TopicCounts>(TOPIC_COUNTS_TTL_MS, 1000, { size: countedOf, weigh: () => 1 }, undefined, audienceChanges(db)),
  ) {}

  private ordered(channelId: number) {
    return this.db<TopicRow>('topics')
      .where({ channel_id: channelId })
      .orderBy([{ column: 'position' }, { column: 'id' }]);
  }

  async list(channelId: number, page: Page): Promise<{ items: Topic[]; total: number }> {
    const [rows, [count]] = await Promise.all([
      page.limit === 0 ? Promise.resolve([] as TopicRow[]) : this.ordered(channelId).limit(page.limit).offset(page.offset),
      this.db('topics').where({ channel_id: channelId }).count<Array<{ n: string }>>({ n: '*' }),
    ]);
    return { items: (rows as TopicRow[]).map(toTopic), total: Number(count?.n ?? 0) };
  }

  async all(channelId: number): Promise<Topic[]> {
    return ((await this.ordered(channelId)) as TopicRow[]).map(toTopic);
  }

  async findById(channelId: number, id: number, options: { forUpdate?: boolean } = {}): Promise<Topic | null> {
    const query = this.db<TopicRow>('topics').where({ channel_id: channelId, id }).first();
    if (options.forUpdate) query.forUpdate();
    const row = (await query) as TopicRow | undefined;
    return row ? toTopic(row) : null;
  }

  async create(channelId: number, settings: Omit<TopicSettings, 'position'> & { position: number | null }, now: Date): Promise<Topic> {
    const { position, ...rest } = settings;
    // After the last: one statement, so two creates at once may share a position (ties go by id).
    const placed = position ?? this.db.raw('(SELECT coalesce(max(position) + 1, 0) FROM topics WHERE channel_id = ?)', [channelId]);
    return uniqueFields(async () => {
      const [row] = await this.db('topics')
        .insert({ channel_id: channelId, ...columns(rest), position: placed, created_at: now, updated_at: now })
        .returning('*');
      return toTopic(row as TopicRow);
    });
  }

  async update(channelId: number, id: number, changes: TopicChanges, now: Date): Promise<Topic> {
    return uniqueFields(async () => {
      const [row] = await this.db('topics')
        .where({ channel_id: channelId, id })
        .update({ ...columns(changes), updated_at: now })
        .returning('*');
      if (row === undefined) throw new Error(`topic ${id} vanished during its update`);
      return toTopic(row as TopicRow);
    });
  }

  /**
   * The counts run over every subscriber of the channel: kept until the subscribers change, for at
   * most TOPIC_COUNTS_TTL_MS, per topic and definition; at most 1,000 subscribers are always
   * counted again (docs/topics.md, "Kept counts").
   */
  async counts(topic: Topic): Promise<TopicCounts> {
    const key = JSON.stringify([topic.id, topic.storage, topic.customDataKey, topic.tagName, topic.unsetReceives]);
    return (await this.keptCounts.current()).get(key, () => this.countNow(topic), TOPIC_COUNTS_ALWAYS_EXACT_UP_TO);
  }

  private async countNow(topic: Topic): Promise<TopicCounts> {
    const { rows } = (await this.db.raw(
      `SELECT count(*) FILTER (WHERE v IS TRUE) AS yes, count(*) FILTER (WHERE v IS FALSE) AS no,
              count(*) FILTER (WHERE v IS NULL) AS unset, count(*) FILTER (WHERE r) AS receiving
         FROM (SELECT topic_value(t.storage, t.custom_data_key, t.tag_name, s.tags, s.custom_data) AS v,
                      receives_topic(t.storage, t.custom_data_key, t.tag_name, t.unset_receives, s.tags, s.custom_data) AS r
                 FROM subscribers s JOIN topics t ON t.id = ?
                WHERE s.channel_id = t.channel_id AND s.redacted_at IS NULL) x`,
      [topic.id],
    )) as { rows: Array<Record<keyof TopicCounts, string>> };
    const row = rows[0]!;
    return { yes: Number(row.yes), no: Number(row.no), unset: Number(row.unset), receiving: Number(row.receiving) };
  }

  async usage(channelId: number, id: number): Promise<TopicUsage> {
    const ids = (rows: Array<{ id: number | string }>) => rows.map((r) => Number(r.id));
    const [broadcasts, sequences, blocks] = await Promise.all([
      this.db('broadcasts').where({ channel_id: channelId, topic_id: id }).whereNotIn('status', FINISHED).orderBy('id').select('id'),
      this.db('sequences').where({ channel_id: channelId, topic_id: id }).orderBy('id').select('id'),
      this.db('opt_in_form_blocks').where({ topic_id: id }).orderBy('id').select('id'),
    ]);
    return { broadcasts: ids(broadcasts), sequences: ids(sequences), formBlocks: ids(blocks) };
  }

  async delete(channelId: number, id: number): Promise<void> {
    await this.db('broadcasts').where({ channel_id: channelId, topic_id: id }).whereIn('status', FINISHED).update({ topic_id: null });
    try {
      await this.db('topics').where({ channel_id: channelId, id }).delete();
    } catch (error) {
      // A broadcast, sequence or block that took the topic after the checks (foreign keys).
      if ((error as { code?: string }).code === '23503') throw new ValidationError('Topic is in use');
      throw error;
    }
  }
}
