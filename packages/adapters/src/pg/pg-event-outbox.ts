import type { EventOutbox, OutboxEvent, RecordedEvent } from '@mailcast/core';
import type { Knex } from 'knex';

export class PgEventOutbox implements EventOutbox {
  constructor(private readonly db: Knex) {}

  async record(event: OutboxEvent): Promise<RecordedEvent> {
    const [row] = await this.db('events')
      .insert({
        channel_id: event.channelId,
        type: event.type,
        data: JSON.stringify(event.data),
        created_at: event.createdAt,
      })
      .returning('id');
    return { ...event, id: (row as { id: number }).id };
  }
}
