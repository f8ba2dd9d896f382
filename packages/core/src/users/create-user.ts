import { inject, injectable } from 'tsyringe';
import type { Principal } from '../auth/authenticate';
import { ValidationError } from '../errors';
import { PasswordHasher, UserRepository } from '../ports';
import { IssuePasswordReset } from './issue-password-reset';
import { requireUserManager } from './user-access';
import { checkPassword, userEmail, userName } from './user-fields';

export interface CreateUserInput {
  email: string;
  firstName?: string | null;
  lastName?: string | null;
  password?: string;
  sendPasswordReset?: boolean;
}

export type CreateUserOutcome = { id: number; resetSent: true } | { id: number; resetSent: false; resetError?: string };

/**
 * A new user (docs/teams.md, Users API): with a password, or with a reset link mailed so they
 * set their own. Everything is checked before anything is written; the link goes out after the
 * user exists, and a link that could not be sent is said, not a failed create.
 */
@injectable()
export class CreateUser {
  constructor(
    @inject(UserRepository) private readonly users: UserRepository,
    @inject(PasswordHasher) private readonly hasher: PasswordHasher,
    @inject(IssuePasswordReset) private readonly resets: IssuePasswordReset,
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
    if (!send) return { id: user.id, resetSent: false };
    try {
      await this.resets.issueAndSend(user);
      return { id: user.id, resetSent: true };
    } catch (error) {
      return { id: user.id, resetSent: false, resetError: error instanceof Error ? error.message : String(error) };
    }
  }
}
