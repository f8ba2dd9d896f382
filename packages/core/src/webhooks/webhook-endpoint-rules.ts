import { isEventType, MAX_RETRIES_TO_ATTEMPT } from '@mailcast/domain';
import type { WebhookDestinations } from '../ports';

export const WEBHOOK_ENDPOINT_NOT_FOUND = 'Webhook endpoint not found';

/**
 * The field messages of a webhook endpoint's create or update, in the spec's order (url, event
 * types, retries): the spec's "Url can't be blank, Event types can't be blank" style, so the
 * caller joins them with ", " into one `{error}`.
 */
export async function endpointProblems(
  destinations: WebhookDestinations,
  input: { url?: string; eventTypes?: readonly string[]; retriesToAttempt?: number },
): Promise<string[]> {
  const problems: string[] = [];
  if (input.url !== undefined) {
    if (input.url.trim() === '') problems.push("Url can't be blank");
    else {
      const verdict = await destinations.check(input.url.trim());
      if (!verdict.ok) problems.push(`Url ${verdict.reason}`);
    }
  }
  if (input.eventTypes !== undefined) {
    if (input.eventTypes.length === 0) problems.push("Event types can't be blank");
    const unknown = input.eventTypes.filter((t) => !isEventType(t));
    if (unknown.length > 0) problems.push(`Event types contains unknown event type(s): ${unknown.join(', ')}`);
  }
  if (input.retriesToAttempt !== undefined) {
    const r = input.retriesToAttempt;
    if (!Number.isInteger(r) || r < 0 || r > MAX_RETRIES_TO_ATTEMPT) {
      problems.push(`Retries to attempt must be an integer from 0 to ${MAX_RETRIES_TO_ATTEMPT}`);
    }
  }
  return problems;
}
