import { DEFAULT_RETRIES_TO_ATTEMPT, generateWebhookSecret, type EventType } from '@mailcast/domain';
import { inject, injectable } from 'tsyringe';
import type { Principal } from '../auth/authenticate';
import { ValidationError } from '../errors';
import { Clock, RandomSource, Repositories, WebhookDestinations, type WebhookEndpoint } from '../ports';
import { endpointProblems } from './webhook-endpoint-rules';

export interface CreateWebhookEndpointInput {
  /** Absent and blank alike are "can't be blank" (spec: Errors). */
  url?: string;
  description?: string | null;
  eventTypes?: readonly string[];
  retriesToAttempt?: number;
  active?: boolean;
}

@injectable()
export class CreateWebhookEndpoint {
  constructor(
    @inject(Repositories) private readonly repositories: Repositories,
    @inject(WebhookDestinations) private readonly destinations: WebhookDestinations,
    @inject(RandomSource) private readonly random: RandomSource,
    @inject(Clock) private readonly clock: Clock,
  ) {}

  /** Returns the endpoint with its whole secret: the creation response is the only place it shows. */
  async execute(principal: Principal, input: CreateWebhookEndpointInput): Promise<WebhookEndpoint> {
    const problems = await endpointProblems(this.destinations, {
      url: input.url ?? '',
      eventTypes: input.eventTypes ?? [],
      ...(input.retriesToAttempt !== undefined ? { retriesToAttempt: input.retriesToAttempt } : {}),
    });
    if (problems.length > 0) throw new ValidationError(problems.join(', '));
    return this.repositories.webhookEndpoints.create(
      {
        channelId: principal.channelId,
        url: input.url!.trim(),
        description: input.description ?? null,
        active: input.active ?? true,
        // Stored once each, in the order given: a repeated type would not mean a second POST.
        eventTypes: [...new Set(input.eventTypes as EventType[])],
        retriesToAttempt: input.retriesToAttempt ?? DEFAULT_RETRIES_TO_ATTEMPT,
        secret: generateWebhookSecret(this.random.bytes(32)),
      },
      this.clock.now(),
    );
  }
}
