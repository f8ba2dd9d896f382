import { inject, injectable } from 'tsyringe';
import type { Principal } from '../auth/authenticate';
import { UserRepository } from '../ports';
import { changeableUser, requireUserManager } from './user-access';

/** Removes the user with its permissions, sessions and resets (the foreign keys cascade). */
@injectable()
export class DeleteUser {
  constructor(@inject(UserRepository) private readonly users: UserRepository) {}

  async execute(caller: Principal, input: { id: number }): Promise<void> {
    requireUserManager(caller, 'users_write');
    await changeableUser(this.users, caller, input.id);
    await this.users.delete(input.id);
  }
}
