import { CreateTransactional, GetTransactional, ValidationError, type Transactional, type TransactionalInput } from '@mailcast/core';
import { actingFor, optional, positiveInteger, readTextFile, required, type Command } from './command';

const TRANSACTIONALS = ['transactionals_read', 'transactionals_write'] as const;

/** A transactional as `GET /api/v1/transactionals/:id.json` answers it. */
function present(t: Transactional) {
  return {
    id: t.id,
    to: t.to,
    subject: t.subject,
    status: t.status,
    message_id: t.messageId,
    sent_at: t.sentAt?.toISOString() ?? null,
    created_at: t.createdAt.toISOString(),
    error: t.error,
  };
}

function parseData(raw: string | null): Record<string, unknown> {
  if (raw === null) return {};
  let parsed: unknown;
  try {
    parsed = JSON.parse(raw);
  } catch (error) {
    throw ValidationError.forFields({ data: [`is not valid JSON: ${(error as Error).message}`] });
  }
  if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) throw ValidationError.forFields({ data: ['must be an object'] });
  return parsed as Record<string, unknown>;
}

/**
 * `transactional send --channel ID --to EMAIL (--subject S --body-file F | --template ID)
 * [--data JSON] [--email-server ID] [--double-opt-in] [--include-unsubscribe-link]`: accepted as `POST
 * /api/v1/transactionals.json` accepts it (docs/transactionals.md); a dispatcher sends it.
 */
export const transactionalSend: Command = {
  usage:
    'transactional send --channel ID --to EMAIL [--subject S] [--body TEXT | --body-file F] [--template ID] [--data JSON] [--email-server ID] [--double-opt-in] [--include-unsubscribe-link]',
  flags: {
    channel: { type: 'string' },
    to: { type: 'string' },
    subject: { type: 'string' },
    body: { type: 'string' },
    'body-file': { type: 'string' },
    template: { type: 'string' },
    data: { type: 'string' },
    'email-server': { type: 'string' },
    'double-opt-in': { type: 'boolean' },
    'include-unsubscribe-link': { type: 'boolean' },
  },
  async run(container, flags) {
    const caller = await actingFor(container, positiveInteger(flags, 'channel'), TRANSACTIONALS);
    const bodyFile = optional(flags, 'body-file');
    const body = bodyFile !== null ? await readTextFile(bodyFile) : optional(flags, 'body');
    const input: TransactionalInput = {
      to: required(flags, 'to'),
      data: parseData(optional(flags, 'data')),
      subscriber: {},
      includeUnsubscribeLink: flags['include-unsubscribe-link'] === true,
      doubleOptIn: flags['double-opt-in'] === true,
    };
    const subject = optional(flags, 'subject');
    if (subject !== null) input.subject = subject;
    if (body !== null) input.body = body;
    if (optional(flags, 'template') !== null) input.templateId = positiveInteger(flags, 'template');
    if (optional(flags, 'email-server') !== null) input.emailServerId = positiveInteger(flags, 'email-server');
    const { body: answer } = await container.resolve(CreateTransactional).execute(caller, { input, rawBody: null, answer: present });
    return { json: answer, human: `transactional ${String(answer.id)} to ${String(answer.to)}: ${String(answer.status)}` };
  },
};

/** `transactional show --channel ID --id N`: its status, Message-ID and error. */
export const transactionalShow: Command = {
  usage: 'transactional show --channel ID --id N',
  flags: { channel: { type: 'string' }, id: { type: 'string' } },
  async run(container, flags) {
    const caller = await actingFor(container, positiveInteger(flags, 'channel'), TRANSACTIONALS);
    const t = await container.resolve(GetTransactional).execute(caller, { id: positiveInteger(flags, 'id') });
    const human = `transactional ${t.id} to ${t.to}: ${t.status}${t.messageId ? ` ${t.messageId}` : ''}${t.error ? ` (${t.error})` : ''}`;
    return { json: present(t), human };
  },
};
