import { inject, injectable } from 'tsyringe';
import type { Principal } from '../auth/authenticate';
import { NotFoundError, ValidationError } from '../errors';
import { DkimKeyGenerator, Transactor, type DkimAlgorithm } from '../ports';
import { checkEmailServer, EMAIL_SERVER_NOT_FOUND, SmtpAllowPlaintext } from './email-server-rules';

export interface DkimRecord {
  dkimDomain: string;
  dkimSelector: string;
  dnsRecord: { name: string; type: 'TXT'; value: string };
}

/**
 * A new DKIM key for the server; from then on every message through it is signed. The domain and
 * selector come with the request or are the server's own (docs/email-servers.md).
 */
@injectable()
export class GenerateDkimKey {
  constructor(
    @inject(Transactor) private readonly transactor: Transactor,
    @inject(DkimKeyGenerator) private readonly keys: DkimKeyGenerator,
    @inject(SmtpAllowPlaintext) private readonly allowPlaintext: SmtpAllowPlaintext,
  ) {}

  async execute(principal: Principal, input: { id: number; algorithm: DkimAlgorithm; dkimDomain?: string; dkimSelector?: string }): Promise<DkimRecord> {
    const pair = await this.keys.generate(input.algorithm);
    return this.transactor.run(async (repositories) => {
      const current = await repositories.emailServers.findById(principal.channelId, input.id);
      if (current === null) throw new NotFoundError(EMAIL_SERVER_NOT_FOUND);
      const domain = input.dkimDomain ?? current.dkimDomain ?? current.fromEmail?.split('@')[1] ?? null;
      const selector = input.dkimSelector ?? current.dkimSelector ?? 'mailcast';
      if (domain === null) throw ValidationError.forFields({ dkim_domain: ["can't be blank (the server has no from_email to take it from)"] });
      const changes = { dkimDomain: domain.toLowerCase(), dkimSelector: selector, dkimPrivateKey: pair.privateKeyPem };
      checkEmailServer({ ...current, ...changes }, this.allowPlaintext);
      await repositories.emailServers.update(principal.channelId, input.id, changes);
      return {
        dkimDomain: changes.dkimDomain,
        dkimSelector: selector,
        dnsRecord: {
          name: `${selector}._domainkey.${changes.dkimDomain}`,
          type: 'TXT',
          value: `v=DKIM1; k=${input.algorithm}; p=${pair.publicKeyBase64}`,
        },
      };
    });
  }
}
