import express, { type Express } from 'express';
import { createServer, IncomingMessage, ServerResponse, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createHttpServer } from './server';

function app(): Express {
  const app = express();
  app.set('trust proxy', 'loopback');
  app.use(express.json());
  app.post('/echo', (req, res) => {
    res
      .status(201)
      .set('X-Seen', req.get('x-probe') ?? 'none')
      .json({ body: req.body, ip: req.ip, path: req.path });
  });
  app.get('/fail', () => {
    throw new Error('boom');
  });
  app.use((_error: unknown, _req: express.Request, res: express.Response, _next: express.NextFunction) => {
    res.status(500).json({ error: 'handled' });
  });
  return app;
}

async function listening(server: Server): Promise<{ url: string; close: () => Promise<void> }> {
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return { url, close: () => new Promise((resolve) => server.close(() => resolve())) };
}

/** For each prototype Express sets on a request or response: was it already in place? */
async function prototypesAlreadyInPlace(server: Server): Promise<boolean[]> {
  const seen: boolean[] = [];
  const original = Object.setPrototypeOf;
  const spy = jest.spyOn(Object, 'setPrototypeOf').mockImplementation((object: object, proto: object | null) => {
    if (object instanceof IncomingMessage || object instanceof ServerResponse) seen.push(Object.getPrototypeOf(object) === proto);
    return original(object, proto);
  });
  const { url, close } = await listening(server);
  try {
    await fetch(`${url}/echo`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{}' });
  } finally {
    spy.mockRestore();
    await close();
  }
  return seen;
}

describe('createHttpServer', () => {
  it('serves Express as usual: its request and response helpers, body parsing, error handlers, keep-alive', async () => {
    const { url, close } = await listening(createHttpServer(app()));
    try {
      for (const n of [1, 2, 3]) {
        const res = await fetch(`${url}/echo?n=${n}`, {
          method: 'POST',
          headers: { 'content-type': 'application/json', 'x-probe': `p${n}` },
          body: JSON.stringify({ n }),
        });
        expect(res.status).toBe(201);
        expect(res.headers.get('x-seen')).toBe(`p${n}`);
        expect(await res.json()).toEqual({ body: { n }, ip: '127.0.0.1', path: '/echo' });
      }
      const failed = await fetch(`${url}/fail`);
      expect(failed.status).toBe(500);
      expect(await failed.json()).toEqual({ error: 'handled' });
    } finally {
      await close();
    }
  });

  it("builds requests and responses on Express's prototypes, so Express has none to change", async () => {
    const seen = await prototypesAlreadyInPlace(createHttpServer(app()));
    expect(seen).toEqual([true, true]);
  });

  it('(the control: a plain node:http server leaves Express both to change)', async () => {
    const seen = await prototypesAlreadyInPlace(createServer(app()));
    expect(seen).toEqual([false, false]);
  });
});
