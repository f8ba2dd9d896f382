import express from 'express';
import request from 'supertest';
import winston from 'winston';
import Transport from 'winston-transport';
import { requestLog } from './request-log';

class Memory extends Transport {
  readonly entries: Array<Record<string, unknown>> = [];
  override log(info: Record<string, unknown>, next: () => void): void {
    this.entries.push(info);
    next();
  }
}

function appLoggingAt(level: string) {
  const memory = new Memory();
  const logger = winston.createLogger({ level, transports: [memory] });
  const info = jest.spyOn(logger, 'info');
  const app = express();
  app.use(requestLog(logger));
  app.get('/x', (_req, res) => {
    res.json({ ok: true });
  });
  return { app, entries: memory.entries, info };
}

describe('requestLog', () => {
  it('writes one line per request at info, without the query string', async () => {
    const { app, entries, info } = appLoggingAt('info');
    expect((await request(app).get('/x?email=a%40b.c')).status).toBe(200);
    expect(entries).toHaveLength(1);
    expect(info).toHaveBeenCalledTimes(1);
    expect(entries[0]).toMatchObject({ level: 'info', http: { method: 'GET', path: '/x', status: 200, durationMs: expect.any(Number) } });
  });

  it('does no logging work below info, and the request still goes through', async () => {
    const { app, entries, info } = appLoggingAt('warn');
    const res = await request(app).get('/x');
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ ok: true });
    expect(entries).toEqual([]);
    // Not even handed to winston, which would carry it through its streams before dropping it.
    expect(info).not.toHaveBeenCalled();
  });
});
