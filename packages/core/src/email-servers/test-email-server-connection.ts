import { inject, injectable } from 'tsyringe';
import type { Principal } from '../auth/authenticate';
import { SmtpProbe, type SmtpCheck } from '../ports';
import { GetEmailServer } from './get-email-server';

/** A real SMTP handshake (TLS as configured, AUTH if set) that sends nothing. */
@injectable()
export class TestEmailServerConnection {
  constructor(
    @inject(GetEmailServer) private readonly get: GetEmailServer,
    @inject(SmtpProbe) private readonly probe: SmtpProbe,
  ) {}

  async execute(principal: Principal, input: { id: number }): Promise<SmtpCheck> {
    return this.probe.check(await this.get.execute(principal, input));
  }
}
