import { SetChannelDesign, ValidationError } from '@mailcast/core';
import { positiveInteger, readTextFile, required, type Command } from './command';

/**
 * `channel design --channel ID --file kit.json` (docs/brand-kit.md): merges the kit in the file
 * over the channel's. Every key is checked first; any error writes nothing and names each key.
 */
export const channelDesign: Command = {
  usage: 'channel design --channel ID --file kit.json',
  flags: { channel: { type: 'string' }, file: { type: 'string' } },
  async run(container, flags) {
    const channelId = positiveInteger(flags, 'channel');
    const file = required(flags, 'file');
    const text = await readTextFile(file);
    let kit: unknown;
    try {
      kit = JSON.parse(text);
    } catch (error) {
      throw new ValidationError(`${file} is not valid JSON: ${(error as Error).message}`);
    }
    const design = await container.resolve(SetChannelDesign).execute({ channelId, kit });
    return { json: design, human: `channel ${channelId} brand kit saved\n${JSON.stringify(design, null, 2)}` };
  },
};
