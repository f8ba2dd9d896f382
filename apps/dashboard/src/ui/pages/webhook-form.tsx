import { useState } from 'preact/hooks';
import type { EventType, WebhookEndpoint } from '../api';
import { Feedback, Field } from '../components';
import { useAction } from '../hooks';

/** Every event an endpoint can subscribe to; `satisfies` keeps it equal to the API's enumeration. */
const EVENT_TYPES = Object.keys({
  'email.sent': 1,
  'email.delivered': 1,
  'email.delivery_delayed': 1,
  'email.bounced': 1,
  'email.complained': 1,
  'email.opened': 1,
  'email.clicked': 1,
  'email.failed': 1,
  'email.send_delayed': 1,
  'subscriber.created': 1,
  'subscriber.updated': 1,
  'subscriber.deleted': 1,
  'subscriber.subscribed': 1,
  'subscriber.unsubscribed': 1,
  'subscriber.bounced': 1,
  'subscriber.complained': 1,
  'subscriber.preferences_updated': 1,
  'subscribers.purged': 1,
  'subscribers.purge_failed': 1,
  'broadcast.scheduled': 1,
  'broadcast.queueing': 1,
  'broadcast.sending': 1,
  'broadcast.sent': 1,
  'broadcast.failed': 1,
  'broadcast.partial_failure': 1,
  'broadcast.aborted': 1,
  'broadcast.paused': 1,
  'broadcast.batch_completed': 1,
  'broadcast.ab_test_decided': 1,
  'sequence.subscriber_added': 1,
  'sequence.subscriber_completed': 1,
  'sequence.subscriber_moved': 1,
  'sequence.subscriber_removed': 1,
  'sequence.subscriber_paused': 1,
  'sequence.subscriber_resumed': 1,
  'sequence.subscriber_error': 1,
  'message.attempt.exhausted': 1,
} satisfies Record<Exclude<EventType, 'test.webhook'>, 1>) as EventType[];
const GROUPS = [...new Set(EVENT_TYPES.map((t) => t.split('.')[0]!))];

export interface WebhookInput {
  url: string;
  description: string;
  event_types: EventType[];
  active: boolean;
}

export function WebhookForm({
  initial,
  submitLabel,
  onSubmit,
}: {
  initial: WebhookInput;
  submitLabel: string;
  onSubmit(input: WebhookInput): Promise<unknown>;
}) {
  const [input, setInput] = useState(initial);
  const action = useAction();
  const toggle = (type: EventType, on: boolean) =>
    setInput({ ...input, event_types: on ? [...input.event_types, type] : input.event_types.filter((t) => t !== type) });

  async function submit(event: Event) {
    event.preventDefault();
    await action.run(() => onSubmit(input), 'Saved.');
  }

  return (
    <form class="stack" onSubmit={submit}>
      <Field label="URL" hint="HTTPS; it receives a signed POST per event.">
        <input type="url" name="url" required value={input.url} onInput={(e) => setInput({ ...input, url: e.currentTarget.value })} />
      </Field>
      <Field label="Description">
        <input name="description" value={input.description} onInput={(e) => setInput({ ...input, description: e.currentTarget.value })} />
      </Field>
      <label class="inline">
        <input type="checkbox" name="active" checked={input.active} onChange={(e) => setInput({ ...input, active: e.currentTarget.checked })} /> Active
      </label>
      {GROUPS.map((group) => (
        <fieldset key={group} class="checks">
          <legend>{group} events</legend>
          {EVENT_TYPES.filter((t) => t.startsWith(`${group}.`)).map((type) => (
            <label key={type}>
              <input
                type="checkbox"
                name="event_types"
                value={type}
                checked={input.event_types.includes(type)}
                onChange={(e) => toggle(type, e.currentTarget.checked)}
              />{' '}
              {type}
            </label>
          ))}
        </fieldset>
      ))}
      <Feedback action={action} />
      <div class="actions">
        <button type="submit" class="primary" disabled={action.busy}>
          {submitLabel}
        </button>
      </div>
    </form>
  );
}

export const inputOf = (e: WebhookEndpoint): WebhookInput => ({ url: e.url, description: e.description ?? '', event_types: e.event_types, active: e.active });
