import { CreatePermissionPreset, CreateUser, SetUserSudo } from '@mailcast/core';
import { optional, positiveInteger, required, UsageError, type Command } from './command';

/**
 * Users from the admin CLI (docs/teams.md, "Users API"): the first user, and sudo, which the API
 * never sets. The password comes from standard input, never from argv (ps, shell history).
 */
export const userCreate: Command = {
  usage: 'user create --email E [--first-name F] [--last-name L] [--sudo]   (password: one line on standard input, at least 12 characters)',
  flags: {
    email: { type: 'string' },
    'first-name': { type: 'string' },
    'last-name': { type: 'string' },
    sudo: { type: 'boolean' },
    password: { type: 'string' },
  },
  async run(container, flags, io) {
    if (flags.password !== undefined) {
      throw new UsageError('--password is refused: a password on the command line shows in ps and in shell history; pipe it to standard input');
    }
    const email = required(flags, 'email');
    const password = (await io.readStdin()).replace(/\r?\n$/, '');
    if (password === '') throw new UsageError('user create reads the password from standard input, and it was empty');
    const sudo = flags.sudo === true;
    const created = await container.resolve(CreateUser).execute(null, {
      email,
      firstName: optional(flags, 'first-name'),
      lastName: optional(flags, 'last-name'),
      password,
      sudo,
    });
    return { json: { id: created.id, email: created.email, sudo }, human: `${sudo ? 'sudo user' : 'user'} ${created.id} (${created.email})` };
  },
};

const sudoCommand = (sudo: boolean): Command => ({
  usage: `user ${sudo ? 'sudo' : 'unsudo'} --id N`,
  flags: { id: { type: 'string' } },
  async run(container, flags) {
    const user = await container.resolve(SetUserSudo).execute({ id: positiveInteger(flags, 'id'), sudo });
    return { json: { id: user.id, sudo: user.sudo }, human: `user ${user.id} is ${user.sudo ? 'now sudo' : 'no longer sudo'}` };
  },
});

export const userSudo = sudoCommand(true);
export const userUnsudo = sudoCommand(false);

/** `preset create --name N (--permissions f1,f2 | --role Viewer [--permissions …])`: a named set of channel flags. */
export const presetCreate: Command = {
  usage: 'preset create --name N [--role Viewer|Editor|Manager] [--permissions flag1,flag2,...]   (at least one of the two)',
  flags: { name: { type: 'string' }, permissions: { type: 'string' }, role: { type: 'string' } },
  async run(container, flags) {
    const role = optional(flags, 'role');
    const permissions = (optional(flags, 'permissions') ?? '')
      .split(',')
      .map((p) => p.trim())
      .filter((p) => p !== '');
    if (role === null && permissions.length === 0) throw new UsageError('--permissions or --role is required');
    const preset = await container.resolve(CreatePermissionPreset).execute({ name: required(flags, 'name'), permissions, role });
    const granted = Object.entries(preset.permissions)
      .filter(([, on]) => on)
      .map(([flag]) => flag);
    return { json: { id: preset.id, name: preset.name, permissions: granted }, human: `preset ${preset.id} "${preset.name}" (${granted.join(', ')})` };
  },
};
