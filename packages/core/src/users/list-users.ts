import { inject, injectable } from 'tsyringe';
import type { Principal } from '../auth/authenticate';
import { Clock, UserRepository, type UserFilter } from '../ports';
import { requireUserManager } from './user-access';
import { viewOf, type UserView } from './user-view';

@injectable()
export class ListUsers {
  constructor(
    @inject(UserRepository) private readonly users: UserRepository,
    @inject(Clock) private readonly clock: Clock,
  ) {}

  async execute(caller: Principal, filter: UserFilter): Promise<{ items: UserView[]; total: number }> {
    requireUserManager(caller, 'users_read');
    const { items, total } = await this.users.list(filter);
    const now = this.clock.now();
    return { items: items.map((u) => viewOf(u, now)), total };
  }
}
