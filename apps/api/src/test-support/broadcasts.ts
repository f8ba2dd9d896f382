import { Clock, type NewEmailServer } from '@mailcast/core';
import request from 'supertest';
import type { ApiHarness } from './harness';

/** A clock a test moves by hand (the one port tests may replace). */
export class SettableClock implements Clock {
  constructor(public current: Date) {}
  now(): Date {
    return new Date(this.current);
  }
}

export const clockOverride = (clock: SettableClock) => ({ token: Clock, value: clock });

/** supertest requests carrying one token. */
export function client(api: ApiHarness, token: string) {
  const auth = (r: request.Test) => r.set('Authorization', `Bearer ${token}`);
  return {
    get: (path: string) => auth(request(api.app).get(path)),
    post: (path: string, body?: object) => (body === undefined ? auth(request(api.app).post(path)) : auth(request(api.app).post(path)).send(body)),
    patch: (path: string, body: object) => auth(request(api.app).patch(path)).send(body),
    delete: (path: string) => auth(request(api.app).delete(path)),
  };
}

export function anEmailServer(api: ApiHarness, channelId: number, overrides: Partial<NewEmailServer> = {}) {
  return api.fixtures.aCaptureServer(channelId, 2525, { fromEmail: 'news@example.test', fromName: 'News', ...overrides });
}

export async function aSegment(api: ApiHarness, channelId: number, name = 'Segment'): Promise<number> {
  const [row] = await api.database.db('segments').insert({ channel_id: channelId, name }).returning('id');
  return Number((row as { id: number }).id);
}

/** Moves a broadcast to a status directly, as the dispatcher would. */
export async function setStatus(api: ApiHarness, id: number, status: string, extra: Record<string, unknown> = {}): Promise<void> {
  await api.database
    .db('broadcasts')
    .where({ id })
    .update({ status, ...extra });
}

/** The outbox events of one broadcast, oldest first. */
export async function broadcastEvents(api: ApiHarness, id: number): Promise<Array<{ type: string; data: Record<string, unknown> }>> {
  return api.database.db('events').whereRaw("(data->>'broadcast_id')::bigint = ?", [id]).orderBy('id').select('type', 'data');
}

/** Jobs of a queue for one broadcast. */
export async function jobsFor(api: ApiHarness, queue: string, id: number): Promise<Array<{ data: Record<string, unknown>; start_after: Date; state: string }>> {
  const { rows } = await api.database.db.raw(
    `SELECT data, start_after, state FROM pgboss.job WHERE name = ? AND (data->>'broadcastId')::bigint = ? ORDER BY created_on`,
    [queue, id],
  );
  return rows;
}
