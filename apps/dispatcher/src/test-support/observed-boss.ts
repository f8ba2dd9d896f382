import type PgBoss from 'pg-boss';

export interface BossObserver {
  /** A fetch answered: the queue and how many jobs it gave. */
  onFetch?(queue: string, jobs: number): void;
  /** A job's end (complete or fail) was refused, for instance by a database that is away. */
  onEndRefused?(error: unknown): void;
}

/**
 * The same pg-boss, whose fetches and refused job ends are also told to `observer`: a test waits
 * on what the workers did rather than for a while.
 */
export function observedBoss(boss: PgBoss, observer: BossObserver): PgBoss {
  return new Proxy(boss, {
    get(target, property) {
      const value: unknown = Reflect.get(target, property, target);
      if (typeof value !== 'function') return value;
      const method = value as (...args: unknown[]) => Promise<unknown>;
      if (property === 'fetch') {
        return async (...args: unknown[]) => {
          const jobs = (await method.apply(target, args)) as unknown[];
          observer.onFetch?.(args[0] as string, jobs.length);
          return jobs;
        };
      }
      if (property === 'complete' || property === 'fail') {
        return async (...args: unknown[]) => {
          try {
            return await method.apply(target, args);
          } catch (error) {
            observer.onEndRefused?.(error);
            throw error;
          }
        };
      }
      return method.bind(target);
    },
  });
}
