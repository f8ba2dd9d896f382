import { inject, injectable } from 'tsyringe';
import type { Principal } from '../auth/authenticate';
import { NotFoundError, ValidationError } from '../errors';
import { Transactor } from '../ports';
import { TEMPLATE_NOT_FOUND } from './update-template';

/** Broadcasts on their way out: their template is still what they were written from. */
const BUSY = ['future_scheduled', 'scheduled', 'queueing', 'sending', 'paused'] as const;

export const TEMPLATE_IN_USE = 'Template is used by a scheduled or sending broadcast';
export const TEMPLATE_IN_SEQUENCE = 'Template is used by a sequence step';

@injectable()
export class DeleteTemplate {
  constructor(@inject(Transactor) private readonly transactor: Transactor) {}

  execute(caller: Principal, input: { id: number }): Promise<void> {
    return this.transactor.run(async (r) => {
      const template = await r.templates.findById(caller.channelId, input.id);
      if (template === null) throw new NotFoundError(TEMPLATE_NOT_FOUND);
      if (await r.templates.usedByBroadcasts(template.id, BUSY)) throw new ValidationError(TEMPLATE_IN_USE);
      if (await r.sequences.usesTemplate(caller.channelId, template.id)) throw new ValidationError(TEMPLATE_IN_SEQUENCE);
      await r.templates.delete(caller.channelId, template.id);
    });
  }
}
