import { percentageComplete, type BroadcastStatus } from '@mailcast/domain';
import { inject, injectable } from 'tsyringe';
import { NotFoundError } from '../errors';
import { Repositories } from '../ports';
import { BROADCAST_NOT_FOUND } from './get-broadcast';

export interface BroadcastProgress {
  id: number;
  name: string | null;
  status: BroadcastStatus;
  totalRecipients: number;
  processed: number;
  percentageComplete: number;
  /** Still moving on its own: scheduled, queueing or sending. */
  inProgress: boolean;
}

const MOVING: readonly BroadcastStatus[] = ['scheduled', 'queueing', 'sending'];

/** The operator's view of one broadcast's progress, across channels (admin CLI). */
@injectable()
export class GetBroadcastProgress {
  constructor(@inject(Repositories) private readonly repositories: Repositories) {}

  async execute(input: { id: number }): Promise<BroadcastProgress> {
    const broadcast = await this.repositories.broadcasts.findByIdInAnyChannel(input.id);
    if (broadcast === null) throw new NotFoundError(BROADCAST_NOT_FOUND);
    return {
      id: broadcast.id,
      name: broadcast.name,
      status: broadcast.status,
      totalRecipients: broadcast.totalRecipients,
      processed: broadcast.broadcastRecipientsCount,
      percentageComplete: percentageComplete(broadcast.broadcastRecipientsCount, broadcast.totalRecipients),
      inProgress: MOVING.includes(broadcast.status),
    };
  }
}
