import type { Topic, TopicCounts } from '@mailcast/core';

/** A topic as the API shows it (docs/topics.md, "The API"); a show adds its counts. */
export function presentTopic(t: Topic, counts?: TopicCounts) {
  return {
    id: t.id,
    name: t.name,
    description: t.description,
    storage: t.storage,
    custom_data_key: t.customDataKey,
    tag_name: t.tagName,
    unset_receives: t.unsetReceives,
    visible_on_preference_page: t.visibleOnPreferencePage,
    position: t.position,
    created_at: t.createdAt.toISOString(),
    updated_at: t.updatedAt.toISOString(),
    ...(counts !== undefined ? { counts } : {}),
  };
}
