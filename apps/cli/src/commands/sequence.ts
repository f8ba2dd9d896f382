import { AddSequenceSubscriber, ListSequences, NotFoundError, Repositories, SEQUENCE_NOT_FOUND } from '@mailcast/core';
import { actingFor, positiveInteger, required, type Command } from './command';

const SEQUENCES = ['sequences_read', 'sequences_write', 'subscribers_read', 'subscribers_write'] as const;
/** The CLI lists a channel's sequences in one answer: pages of the API's largest size. */
const PAGE = 100;

/** `sequence list --channel ID`: every sequence of the channel, newest first, with its counts. */
export const sequenceList: Command = {
  usage: 'sequence list --channel ID',
  flags: { channel: { type: 'string' } },
  async run(container, flags) {
    const caller = await actingFor(container, positiveInteger(flags, 'channel'), SEQUENCES);
    const rows: Array<{ id: number; label: string; active: boolean; init_tag: string | null; subscribers_count: number; steps_count: number }> = [];
    for (let offset = 0; ; offset += PAGE) {
      const { items, total } = await container.resolve(ListSequences).execute(caller, { limit: PAGE, offset });
      for (const { sequence: s, counts } of items) {
        rows.push({
          id: s.id,
          label: s.label,
          active: s.active,
          init_tag: s.initTag,
          subscribers_count: counts.subscribersCount,
          steps_count: counts.stepsCount,
        });
      }
      if (offset + PAGE >= total) break;
    }
    const human =
      rows.length === 0
        ? 'no sequences'
        : rows.map((r) => `${r.id}\t${r.active ? 'active' : 'off'}\t${r.subscribers_count} enrolled\t${r.steps_count} steps\t${r.label}`).join('\n');
    return { json: { data: rows, total: rows.length }, human };
  },
};

/**
 * `sequence enrol --sequence ID --email E`: add_subscriber for the operator, in the sequence's own
 * channel (an unknown address is created), with the same answers and event as the API's.
 */
export const sequenceEnrol: Command = {
  usage: 'sequence enrol --sequence ID --email E',
  flags: { sequence: { type: 'string' }, email: { type: 'string' } },
  async run(container, flags) {
    const sequenceId = positiveInteger(flags, 'sequence');
    const channelId = await container.resolve<Repositories>(Repositories).sequences.channelOf(sequenceId);
    if (channelId === null) throw new NotFoundError(SEQUENCE_NOT_FOUND);
    const caller = await actingFor(container, channelId, SEQUENCES);
    const { kind, enrolment: e } = await container.resolve(AddSequenceSubscriber).execute(caller, { sequenceId, email: required(flags, 'email') });
    const json = {
      id: e.id,
      sequence_id: sequenceId,
      status: e.status,
      current_step_id: e.currentStepId,
      subscriber: e.subscriber,
      already_enrolled: kind === 'already_enrolled',
    };
    const human =
      kind === 'already_enrolled'
        ? `${e.subscriber.email} is already in sequence ${sequenceId} (${e.status})`
        : `${e.subscriber.email} enrolled in sequence ${sequenceId} (${e.status})`;
    return { json, human };
  },
};
