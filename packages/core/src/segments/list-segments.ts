import { inject, injectable } from 'tsyringe';
import type { Principal } from '../auth/authenticate';
import { SegmentRepository, type Page, type Segment } from '../ports';

@injectable()
export class ListSegments {
  constructor(@inject(SegmentRepository) private readonly segments: SegmentRepository) {}

  execute(principal: Principal, page: Page): Promise<{ items: Segment[]; total: number }> {
    return this.segments.list(principal.channelId, page);
  }
}
