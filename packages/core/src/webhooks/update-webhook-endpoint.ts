import type { EventType } from '@mailcast/domain';
import { inject, injectable } from 'tsyringe';
import type { Principal } from '../auth/authenticate';
import { NotFoundError, ValidationError } from '../errors';
import { Clock, Repositories, WebhookDestinations, type WebhookEndpoint, type WebhookEndpointChanges } from '../ports';
import { endpointProblems, WEBHOOK_ENDPOINT_NOT_FOUND } from './webhook-endpoint-rules';

/** Changed fields only (spec: Update); an absent field keeps its value. */
export interface UpdateWebhookEndpointInput {
  id: number;
  url?: string;
  description?: string | null;
  eventTypes?: readonly string[];
  retriesToAttempt?: number;
  active?: boolean;
}

@injectable()
export class UpdateWebhookEndpoint {
  constructor(
    @inject(Repositories) private readonly repositories: Repositories,
    @inject(WebhookDestinations) private readonly destinations: WebhookDestinations,
    @inject(Clock) private readonly clock: Clock,
  ) {}

  async execute(principal: Principal, input: UpdateWebhookEndpointInput): Promise<WebhookEndpoint> {
    // An unknown id is a 404 before any field is judged, as for every endpoint operation.
    const existing = await this.repositories.webhookEndpoints.findById(principal.channelId, input.id);
    if (existing === null) throw new NotFoundError(WEBHOOK_ENDPOINT_NOT_FOUND);
    const problems = await endpointProblems(this.destinations, input);
    if (problems.length > 0) throw new ValidationError(problems.join(', '));

    const changes: WebhookEndpointChanges = {};
    if (input.url !== undefined) changes.url = input.url.trim();
    if (input.description !== undefined) changes.description = input.description;
    if (input.eventTypes !== undefined) changes.eventTypes = [...new Set(input.eventTypes as EventType[])];
    if (input.retriesToAttempt !== undefined) changes.retriesToAttempt = input.retriesToAttempt;
    if (input.active !== undefined) changes.active = input.active;
    const updated = await this.repositories.webhookEndpoints.update(principal.channelId, input.id, changes, this.clock.now());
    if (updated === null) throw new NotFoundError(WEBHOOK_ENDPOINT_NOT_FOUND);
    return updated;
  }
}
