import { CreateTemplate, DeleteTemplate, ListTemplates, templateJson } from '@mailcast/core';
import { actingFor, optional, positiveInteger, readTextFile, required, UsageError, type Command, type Flags } from './command';

const TEMPLATES = ['templates_read', 'templates_write'] as const;

async function fileFlag(flags: Flags, name: string): Promise<string | undefined> {
  const file = optional(flags, name);
  return file === null ? undefined : readTextFile(file);
}

/**
 * `template create --channel ID --label L [--subject S] [--body-file F] [--html-file F]
 * [--purpose broadcast|confirmation] [--default-confirmation]` (docs/templates.md): Liquid is
 * checked as the API checks it, and a 422's message says where.
 */
export const templateCreate: Command = {
  usage:
    'template create --channel ID --label LABEL [--subject S] [--preheader P] [--body-file F] [--html-file F] [--purpose broadcast|confirmation] [--default-confirmation]',
  flags: {
    channel: { type: 'string' },
    label: { type: 'string' },
    subject: { type: 'string' },
    preheader: { type: 'string' },
    'body-file': { type: 'string' },
    'html-file': { type: 'string' },
    purpose: { type: 'string' },
    'default-confirmation': { type: 'boolean' },
  },
  async run(container, flags) {
    const caller = await actingFor(container, positiveInteger(flags, 'channel'), TEMPLATES);
    const purpose = optional(flags, 'purpose') ?? 'broadcast';
    if (purpose !== 'broadcast' && purpose !== 'confirmation') throw new UsageError('--purpose must be broadcast or confirmation');
    const body = await fileFlag(flags, 'body-file');
    const htmlBody = await fileFlag(flags, 'html-file');
    const template = await container.resolve(CreateTemplate).execute(caller, {
      label: required(flags, 'label'),
      ...(optional(flags, 'subject') !== null ? { subject: optional(flags, 'subject') } : {}),
      ...(optional(flags, 'preheader') !== null ? { preheader: optional(flags, 'preheader') } : {}),
      ...(body !== undefined ? { body } : {}),
      ...(htmlBody !== undefined ? { htmlBody } : {}),
      purpose,
      defaultConfirmation: flags['default-confirmation'] === true,
    });
    return { json: templateJson(template), human: `template ${template.id} created: ${template.label} (${template.purpose})` };
  },
};

/** `template list --channel ID`: the channel's templates, newest first (the first 250). */
export const templateList: Command = {
  usage: 'template list --channel ID',
  flags: { channel: { type: 'string' } },
  async run(container, flags) {
    const caller = await actingFor(container, positiveInteger(flags, 'channel'), TEMPLATES);
    const { items, total } = await container.resolve(ListTemplates).execute(caller, { limit: 250, offset: 0 });
    const lines = items.map((t) => `${t.id}\t${t.purpose}${t.defaultConfirmation ? ' (default)' : ''}\t${t.label}`);
    return { json: { data: items.map(templateJson), total }, human: [`${total} template(s)`, ...lines].join('\n') };
  },
};

/** `template delete --channel ID --id N`: refused while a scheduled or sending broadcast uses it. */
export const templateDelete: Command = {
  usage: 'template delete --channel ID --id N',
  flags: { channel: { type: 'string' }, id: { type: 'string' } },
  async run(container, flags) {
    const caller = await actingFor(container, positiveInteger(flags, 'channel'), TEMPLATES);
    const id = positiveInteger(flags, 'id');
    await container.resolve(DeleteTemplate).execute(caller, { id });
    return { json: { id, deleted: true }, human: `template ${id} deleted` };
  },
};
