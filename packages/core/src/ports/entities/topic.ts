import type { TopicStorage } from '@mailcast/domain';

/** Something a subscriber may choose to receive (docs/topics.md); its value lives in the subscriber's data. */
export interface Topic {
  id: number;
  channelId: number;
  name: string;
  description: string | null;
  storage: TopicStorage;
  customDataKey: string | null;
  tagName: string | null;
  unsetReceives: boolean;
  visibleOnPreferencePage: boolean;
  position: number;
  createdAt: Date;
  updatedAt: Date;
}

export type TopicSettings = Omit<Topic, 'id' | 'channelId' | 'createdAt' | 'updatedAt'>;
export type TopicChanges = Partial<TopicSettings>;

/** Over the channel's subscribers that are not redacted: yes + no + unset = all of them. */
export interface TopicCounts {
  yes: number;
  no: number;
  unset: number;
  /** receives_topic true: yes, and unset when unset_receives. */
  receiving: number;
}

/** What still needs a topic: unsent broadcasts, sequences, form blocks (their ids). */
export interface TopicUsage {
  broadcasts: number[];
  sequences: number[];
  formBlocks: number[];
}
