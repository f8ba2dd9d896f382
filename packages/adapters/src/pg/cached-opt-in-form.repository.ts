import type { OptInForm, OptInFormRepository } from '@mailcast/core';
import type { Knex } from 'knex';
import { NotificationListener, type NotificationListenerOptions } from './notification-listener';

/** Announced by triggers on opt_in_forms and opt_in_form_blocks at the commit of any change (migration 20261204600000). */
export const OPT_IN_FORMS_CHANGED_CHANNEL = 'mailcast_opt_in_forms_changed';

export interface OptInFormCacheOptions extends NotificationListenerOptions {
  /** Identifiers (and main forms' variant lists) kept; the oldest goes first. */
  maxEntries: number;
}

/**
 * The public forms routes read a form by identifier (and a main form's variants) on every view
 * and submission: this keeps those answers in memory (docs/opt-in-forms.md, "The form in
 * memory"). Any committed change to a form or its blocks, through Mailcast or by hand, is
 * announced by a trigger and empties the cache; an answer read while one arrived is not kept; and
 * without the listening connection nothing is served from memory. Unknown identifiers are not
 * kept (a scan of made-up ones cannot fill the memory). Every other method is the inner one's.
 */
export class CachedOptInFormRepository implements OptInFormRepository {
  private readonly forms = new Map<string, OptInForm>();
  private readonly variants = new Map<number, OptInForm[]>();
  private generation = 0;
  private readonly listener: NotificationListener;

  constructor(
    private readonly inner: OptInFormRepository,
    db: Knex,
    private readonly options: OptInFormCacheOptions,
  ) {
    this.listener = new NotificationListener(db, OPT_IN_FORMS_CHANGED_CHANNEL, () => this.invalidate(), options);
  }

  findByIdentifier(identifier: string): Promise<OptInForm | null> {
    return this.remembered(
      this.forms,
      identifier.toLowerCase(),
      () => this.inner.findByIdentifier(identifier),
      (form) => form !== null,
    );
  }

  variantsOf(formId: number): Promise<OptInForm[]> {
    return this.remembered(
      this.variants,
      formId,
      () => this.inner.variantsOf(formId),
      () => true,
    );
  }

  findById: OptInFormRepository['findById'] = (...a) => this.inner.findById(...a);
  list: OptInFormRepository['list'] = (...a) => this.inner.list(...a);
  create: OptInFormRepository['create'] = (...a) => this.inner.create(...a);
  update: OptInFormRepository['update'] = (...a) => this.inner.update(...a);
  saveBlocks: OptInFormRepository['saveBlocks'] = (...a) => this.inner.saveBlocks(...a);
  delete: OptInFormRepository['delete'] = (...a) => this.inner.delete(...a);
  variantCounts: OptInFormRepository['variantCounts'] = (...a) => this.inner.variantCounts(...a);
  counters: OptInFormRepository['counters'] = (...a) => this.inner.counters(...a);
  dailyCounters: OptInFormRepository['dailyCounters'] = (...a) => this.inner.dailyCounters(...a);
  enrollingInto: OptInFormRepository['enrollingInto'] = (...a) => this.inner.enrollingInto(...a);
  existingTopics: OptInFormRepository['existingTopics'] = (...a) => this.inner.existingTopics(...a);

  /** Whether forms are served from memory (the change listener is up). */
  get active(): boolean {
    return this.listener.active;
  }

  /** Opens the listener now rather than at the first lookup. */
  start(): Promise<void> {
    return this.listener.start();
  }

  close(): Promise<void> {
    return this.listener.close();
  }

  private async remembered<K, V>(entries: Map<K, V>, key: K, load: () => Promise<V>, keep: (value: V) => boolean): Promise<V> {
    this.listener.ensure();
    const cached = entries.get(key);
    if (cached !== undefined && this.listener.active) return cached;
    const generation = this.generation;
    const value = await load();
    if (keep(value) && this.listener.active && generation === this.generation) {
      entries.delete(key);
      if (entries.size >= this.options.maxEntries) entries.delete(entries.keys().next().value!);
      entries.set(key, value);
    }
    return value;
  }

  private invalidate(): void {
    this.generation++;
    this.forms.clear();
    this.variants.clear();
  }
}
