import { checkBrandKit, mergeBrandKit, resolveBrandKit, type BrandKit } from '@mailcast/domain';
import { inject, injectable } from 'tsyringe';
import { requirePermission, type Principal } from '../auth/authenticate';
import { NotFoundError, UnauthorizedError, ValidationError } from '../errors';
import { Repositories, Transactor } from '../ports';

/** The caller's channel's brand kit, every key answered (docs/brand-kit.md). */
@injectable()
export class GetChannelDesign {
  constructor(@inject(Repositories) private readonly repositories: Repositories) {}

  async execute(caller: Principal): Promise<BrandKit> {
    requirePermission(caller, 'templates_read');
    const stored = await this.repositories.channels.findDesign(caller.channelId);
    if (stored === null) throw new UnauthorizedError();
    return resolveBrandKit(stored);
  }
}

/**
 * Merges a kit an operator wrote over the channel's (admin CLI `channel design`, docs/brand-kit.md):
 * every key is checked first, and any error writes nothing.
 */
@injectable()
export class SetChannelDesign {
  constructor(@inject(Transactor) private readonly transactor: Transactor) {}

  async execute(input: { channelId: number; kit: unknown }): Promise<BrandKit> {
    const { patch, errors } = checkBrandKit(input.kit);
    if (Object.keys(errors).length > 0) throw ValidationError.forFields(errors);
    return this.transactor.run(async (repositories) => {
      // Locked: two edits at once each merge over the other's result, neither is lost.
      const stored = await repositories.channels.findDesign(input.channelId, { forUpdate: true });
      if (stored === null) throw new NotFoundError('Channel not found');
      const merged = mergeBrandKit(stored, patch);
      await repositories.channels.saveDesign(input.channelId, merged);
      return resolveBrandKit(merged);
    });
  }
}
