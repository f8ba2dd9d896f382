import type { EventOutbox, OutboxEvent, RecordedEvent } from '@mailcast/core';
import type { Knex } from 'knex';

export class PgEventOutbox implements EventOutbox {
  /** `recorded` is told of each event written (the transactor wakes the relays after commit). */
  constructor(
    private readonly db: Knex,
    private readonly recorded?: () => void,
  ) {}

  async record(event: OutboxEvent): Promise<RecordedEvent> {
    const [row] = await this.db('events')
      .insert({
        channel_id: event.channelId,
        type: event.type,
        data: JSON.stringify(event.data),
        created_at: event.createdAt,
      })
      .returning('id');
    this.recorded?.();
    return { ...event, id: (row as { id: number }).id };
  }
}
