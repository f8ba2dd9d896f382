import type { EnrolmentStatus } from '@mailcast/domain';
import { inject, injectable } from 'tsyringe';
import type { Principal } from '../auth/authenticate';
import { Repositories, type Enrolment } from '../ports';
import { sequenceOrNotFound } from './sequence-rules';

/** The documented example's page size (docs/sequences.md). */
export const ENROLMENTS_PAGE_SIZE = 10;

/** Newest first, 10 a page from page 1, optionally of one status. */
@injectable()
export class ListSequenceSubscribers {
  constructor(@inject(Repositories) private readonly repositories: Repositories) {}

  async execute(
    principal: Principal,
    input: { sequenceId: number; page: number; status: EnrolmentStatus | null },
  ): Promise<{ items: Enrolment[]; total: number }> {
    const sequence = await sequenceOrNotFound(this.repositories, principal.channelId, input.sequenceId);
    return this.repositories.sequences.enrolments(sequence.id, input.status, {
      limit: ENROLMENTS_PAGE_SIZE,
      offset: (input.page - 1) * ENROLMENTS_PAGE_SIZE,
    });
  }
}
