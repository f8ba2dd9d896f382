import { inject, injectable } from 'tsyringe';
import type { Principal } from '../auth/authenticate';
import { ValidationError } from '../errors';
import { PasswordHasher, UserRepository } from '../ports';
import { requireUserManager } from './user-access';
import { checkPassword, userEmail, userName } from './user-fields';

export interface CreateUserInput {
  email: string;
  firstName?: string | null;
  lastName?: string | null;
  password?: string;
  sendPasswordReset?: boolean;
}

/** The new user, and whether a reset link is to be mailed (IssuePasswordReset.offer, by the caller). */
export interface CreateUserOutcome {
  id: number;
  email: string;
  sendPasswordReset: boolean;
}

/**
 * A new user (docs/teams.md, "Users API"): with a password, or without one, for a reset link the
 * caller then mails (IssuePasswordReset.offer) so they set their own. Everything is checked
 * before anything is written.
 */
@injectable()
export class CreateUser {
  constructor(
    @inject(UserRepository) private readonly users: UserRepository,
    @inject(PasswordHasher) private readonly hasher: PasswordHasher,
  ) {}

  /** `caller` null: the admin CLI, which alone may make a sudo user. */
  async execute(caller: Principal | null, input: CreateUserInput & { sudo?: boolean }): Promise<CreateUserOutcome> {
    if (caller !== null) requireUserManager(caller, 'users_write');
    if (caller !== null && input.sudo === true) throw new ValidationError('sudo cannot be set through the API');
    const email = userEmail(input.email);
    const firstName = userName(input.firstName, 'First name') ?? null;
    const lastName = userName(input.lastName, 'Last name') ?? null;
    const send = input.sendPasswordReset === true;
    if (input.password === undefined && !send) throw new ValidationError('Either password or send_password_reset: true is required');
    if (input.password !== undefined && send) throw new ValidationError('Give either password or send_password_reset, not both');
    const passwordHash = input.password === undefined ? null : await this.hasher.hash(checkPassword(input.password));
    const user = await this.users.create({ email, firstName, lastName, passwordHash, sudo: input.sudo === true });
    return { id: user.id, email: user.email, sendPasswordReset: send };
  }
}
