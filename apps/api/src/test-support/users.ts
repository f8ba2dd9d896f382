import { Argon2PasswordHasher } from '@mailcast/adapters';
import { ROLE_FLAGS, type ChannelFlags, type Role } from '@mailcast/domain';
import type { Express } from 'express';
import request from 'supertest';
import type { ApiHarness } from './harness';

const hasher = new Argon2PasswordHasher();
let counter = 0;

export interface TestUser {
  id: number;
  email: string;
  password: string;
}

/**
 * A user inserted directly (the users API is another part's), with an argon2id password and
 * permission rows for the channels named (a role's flags, or flags given).
 */
export async function aUser(
  api: ApiHarness,
  options: {
    email?: string;
    password?: string;
    sudo?: boolean;
    active?: boolean;
    twoFactorEnabled?: boolean;
    systemPermissions?: Record<string, boolean>;
    channels?: Array<{ channelId: number; role?: Role; permissions?: ChannelFlags }>;
  } = {},
): Promise<TestUser> {
  counter += 1;
  const email = options.email ?? `user${counter}-${Date.now()}@example.com`;
  const password = options.password ?? `correct horse battery ${counter}`;
  const [row] = (await api.database
    .db('users')
    .insert({
      email,
      first_name: 'Test',
      last_name: `User ${counter}`,
      password_hash: await hasher.hash(password),
      sudo: options.sudo ?? false,
      active: options.active ?? true,
      two_factor_enabled: options.twoFactorEnabled ?? false,
      system_permissions: options.systemPermissions ?? {},
    })
    .returning('id')) as Array<{ id: string | number }>;
  const id = Number(row!.id);
  for (const c of options.channels ?? []) {
    await api.database
      .db('user_channel_permissions')
      .insert({ user_id: id, channel_id: c.channelId, permissions: c.permissions ?? ROLE_FLAGS[c.role ?? 'Manager'] });
  }
  return { id, email, password };
}

export interface SignedInSession {
  /** The Cookie header to send. */
  cookie: string;
  /** The cookie's bare value. */
  value: string;
  csrf: string;
  body: Record<string, any>;
}

/** The value of mailcast_session in a response's Set-Cookie, or undefined. */
export function sessionCookieOf(res: request.Response): string | undefined {
  const raw = res.headers['set-cookie'] as unknown as string[] | undefined;
  const line = raw?.find((l) => l.startsWith('mailcast_session='));
  return line?.slice('mailcast_session='.length).split(';')[0];
}

export async function signIn(app: Express, user: { email: string; password: string }): Promise<SignedInSession> {
  const res = await request(app).post('/auth/sign_in').send({ email: user.email, password: user.password });
  if (res.status !== 200) throw new Error(`sign-in answered ${res.status} ${JSON.stringify(res.body)}`);
  const value = sessionCookieOf(res)!;
  return { cookie: `mailcast_session=${value}`, value, csrf: res.body.csrf_token, body: res.body };
}
