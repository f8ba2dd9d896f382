import { inject, injectable } from 'tsyringe';
import { Repositories } from '../ports';
import { unsubscribeTarget } from './unsubscribe-target';

/** What the unsubscribe page shows before the recipient confirms. */
@injectable()
export class GetUnsubscribeTarget {
  constructor(@inject(Repositories) private readonly repositories: Repositories) {}

  async execute(input: { token: string }): Promise<{ email: string; unsubscribed: boolean } | null> {
    const t = await unsubscribeTarget(this.repositories, input.token);
    if (t === null) return null;
    return { email: t.subscriber.email, unsubscribed: t.subscriber.unsubscribedAt !== null && !t.subscriber.isActive };
  }
}
