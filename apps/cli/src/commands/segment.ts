import { CreateSegment, GetSegment, NotFoundError, Repositories, ValidationError, type Principal } from '@mailcast/core';
import { presentSegmentRule } from '@mailcast/domain';
import { readFile } from 'node:fs/promises';
import type { DependencyContainer } from 'tsyringe';
import { optional, positiveInteger, required, type Command } from './command';

/** The operator acts for a channel as its own token would: segments are scoped by the channel. */
async function actingFor(container: DependencyContainer, channelId: number): Promise<Principal> {
  if ((await container.resolve<Repositories>(Repositories).channels.findById(channelId)) === null) {
    throw new NotFoundError('Channel not found');
  }
  return { tokenId: 0, channelId, permissions: ['segments_read', 'segments_write'] };
}

/** A rules file: a JSON array of rules, or an object with `match` and `rules`. */
async function readRules(file: string): Promise<{ match?: unknown; rules: unknown }> {
  const text = await readFile(file, 'utf8').catch((error: NodeJS.ErrnoException) => {
    throw new ValidationError(error.code === 'ENOENT' ? `File not found: ${file}` : `Cannot read ${file}: ${error.message}`);
  });
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch (error) {
    throw new ValidationError(`${file} is not valid JSON: ${(error as Error).message}`);
  }
  if (Array.isArray(parsed)) return { rules: parsed };
  if (typeof parsed === 'object' && parsed !== null) {
    const { match, rules } = parsed as { match?: unknown; rules?: unknown };
    return { match, rules };
  }
  throw new ValidationError(`${file} must hold an array of rules or {"match", "rules"}`);
}

/** `segment create --channel ID --name NAME --rules FILE [--match all|any]` (docs/segments.md). */
export const segmentCreate: Command = {
  usage: 'segment create --channel ID --name NAME --rules FILE.json [--match all|any] [--description TEXT]',
  flags: { channel: { type: 'string' }, name: { type: 'string' }, rules: { type: 'string' }, match: { type: 'string' }, description: { type: 'string' } },
  async run(container, flags) {
    const caller = await actingFor(container, positiveInteger(flags, 'channel'));
    const fromFile = await readRules(required(flags, 'rules'));
    const segment = await container.resolve(CreateSegment).execute(caller, {
      name: required(flags, 'name'),
      description: optional(flags, 'description'),
      match: optional(flags, 'match') ?? fromFile.match,
      rules: fromFile.rules,
    });
    const json = {
      id: segment.id,
      name: segment.name,
      match: segment.definition.match,
      rules: segment.definition.rules.map(presentSegmentRule),
    };
    return { json, human: `segment ${segment.id} created: ${segment.name} (${segment.definition.rules.length} rules, match ${segment.definition.match})` };
  },
};

/** `segment count --channel ID --id N`: the members now, counted by the database. */
export const segmentCount: Command = {
  usage: 'segment count --channel ID --id N',
  flags: { channel: { type: 'string' }, id: { type: 'string' } },
  async run(container, flags) {
    const caller = await actingFor(container, positiveInteger(flags, 'channel'));
    const id = positiveInteger(flags, 'id');
    const { segment, subscribersCount } = await container.resolve(GetSegment).execute(caller, { id, page: 1 });
    return { json: { id, subscribers_count: subscribersCount }, human: `segment ${id} (${segment.name}): ${subscribersCount} subscribers` };
  },
};
