import type { Page } from './entities/page';
import type { Template, TemplateFields } from './entities/template';

/** The channel's templates; every look-up is scoped to the channel. */
export interface TemplateRepository {
  /** Writes the template; with defaultConfirmation, the channel's previous default stops being one. */
  create(channelId: number, fields: TemplateFields, now: Date): Promise<Template>;
  findById(channelId: number, id: number): Promise<Template | null>;
  /** Most recently created first. */
  list(channelId: number, page: Page): Promise<{ items: Template[]; total: number }>;
  /** As create for defaultConfirmation; null when the template does not exist. */
  update(channelId: number, id: number, fields: TemplateFields, now: Date): Promise<Template | null>;
  delete(channelId: number, id: number): Promise<boolean>;
  /** Whether a broadcast in one of `statuses` was written from the template. */
  usedByBroadcasts(templateId: number, statuses: readonly string[]): Promise<boolean>;
}
