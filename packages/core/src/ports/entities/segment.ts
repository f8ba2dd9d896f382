import type { SegmentDefinition } from '@mailcast/domain';

/** A rule-based audience: its members are whoever matches when it is read or sent to. */
export interface Segment {
  id: number;
  channelId: number;
  name: string;
  description: string | null;
  definition: SegmentDefinition;
  createdAt: Date;
  updatedAt: Date;
}

export type NewSegment = Pick<Segment, 'channelId' | 'name' | 'description' | 'definition'>;

export type SegmentChanges = Partial<Pick<Segment, 'name' | 'description' | 'definition'>>;
