import { inject, injectable } from 'tsyringe';
import type { Principal } from '../auth/authenticate';
import { Clock, PasswordHasher, UserRepository, type UserChanges } from '../ports';
import { changeableUser, requireUserManager } from './user-access';
import { checkPassword, userEmail, userName } from './user-fields';

export interface UpdateUserInput {
  id: number;
  email?: string;
  firstName?: string | null;
  lastName?: string | null;
  password?: string;
}

/** Names, email, password (a new password ends every session of the user: docs/teams.md). */
@injectable()
export class UpdateUser {
  constructor(
    @inject(UserRepository) private readonly users: UserRepository,
    @inject(PasswordHasher) private readonly hasher: PasswordHasher,
    @inject(Clock) private readonly clock: Clock,
  ) {}

  async execute(caller: Principal, input: UpdateUserInput): Promise<void> {
    requireUserManager(caller, 'users_write');
    await changeableUser(this.users, caller, input.id);
    const changes: UserChanges = {};
    if (input.email !== undefined) changes.email = userEmail(input.email);
    const firstName = userName(input.firstName, 'First name');
    if (firstName !== undefined) changes.firstName = firstName;
    const lastName = userName(input.lastName, 'Last name');
    if (lastName !== undefined) changes.lastName = lastName;
    if (input.password !== undefined) changes.passwordHash = await this.hasher.hash(checkPassword(input.password));
    await this.users.update(input.id, changes, this.clock.now());
  }
}
