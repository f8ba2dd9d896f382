import { inject, injectable } from 'tsyringe';
import { UserRepository, type User } from '../ports';
import { findUser } from './user-access';

/** The admin CLI's `user sudo` / `user unsudo`: never reachable through the API (docs/teams.md). */
@injectable()
export class SetUserSudo {
  constructor(@inject(UserRepository) private readonly users: UserRepository) {}

  async execute(input: { id: number; sudo: boolean }): Promise<User> {
    await findUser(this.users, input.id);
    return (await this.users.setSudo(input.id, input.sudo)) ?? findUser(this.users, input.id);
  }
}
