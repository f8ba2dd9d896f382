import { formatPasswordResetToken, hashPasswordResetToken, PASSWORD_RESET_TOKEN_BYTES, PASSWORD_RESET_TTL_MS } from '@mailcast/domain';
import { inject, injectable } from 'tsyringe';
import { Clock, DashboardLinks, PasswordResetStore, RandomSource, SystemMail } from '../ports';

export interface IssuedPasswordReset {
  /** The raw token: only in the link, never stored (docs/teams.md, Password resets). */
  token: string;
  url: string;
  expiresAt: Date;
}

/**
 * Creates a password reset for a user and, with `issueAndSend`, mails its link through the
 * SystemMail port. Shared by `POST /api/v1/users` (`send_password_reset: true`) and sign-in's
 * `POST /auth/password/forgot`.
 */
@injectable()
export class IssuePasswordReset {
  constructor(
    @inject(PasswordResetStore) private readonly resets: PasswordResetStore,
    @inject(RandomSource) private readonly random: RandomSource,
    @inject(Clock) private readonly clock: Clock,
    @inject(DashboardLinks) private readonly links: DashboardLinks,
    @inject(SystemMail) private readonly mail: SystemMail,
  ) {}

  async issue(userId: number): Promise<IssuedPasswordReset> {
    const token = formatPasswordResetToken(this.random.bytes(PASSWORD_RESET_TOKEN_BYTES));
    const expiresAt = new Date(this.clock.now().getTime() + PASSWORD_RESET_TTL_MS);
    await this.resets.create({ userId, tokenHash: hashPasswordResetToken(token), expiresAt });
    return { token, url: this.links.passwordReset(token), expiresAt };
  }

  async issueAndSend(user: { id: number; email: string }): Promise<IssuedPasswordReset> {
    const issued = await this.issue(user.id);
    await this.mail.send({
      to: user.email,
      subject: 'Set your Mailcast password',
      text: [
        'Hello,',
        '',
        'Open this link to set your Mailcast password:',
        '',
        issued.url,
        '',
        'The link works once, for two hours. If you did not expect this email, you can ignore it.',
      ].join('\n'),
    });
    return issued;
  }
}
