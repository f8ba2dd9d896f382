/**
 * What `start` answers, for the enclosing describe: started in its beforeAll, stopped in its
 * afterAll (hooks run in the order they are declared, so declare what others use first). The
 * answer stands for the started value; reading it before the beforeAll has run throws.
 */
export function suiteResource<T extends object>(start: () => Promise<T>, stop: (value: T) => Promise<unknown>, timeoutMs = 60_000): T {
  let started: T | undefined;
  beforeAll(async () => {
    started = await start();
  }, timeoutMs);
  afterAll(async () => {
    if (started !== undefined) await stop(started);
  }, timeoutMs);
  const value = (): T => {
    if (started === undefined) throw new Error('a suite resource is started in beforeAll: read it inside a hook or a test');
    return started;
  };
  return new Proxy({} as T, {
    get: (_, key) => Reflect.get(value(), key),
    set: (_, key, next) => Reflect.set(value(), key, next),
    has: (_, key) => Reflect.has(value(), key),
  });
}
