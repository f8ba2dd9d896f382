import { useCallback, useLayoutEffect, useRef, useState } from 'preact/hooks';
import { ApiError } from './api';

export interface Resource<T> {
  data: T | undefined;
  error: string | undefined;
  loading: boolean;
  reload(): void;
}

/**
 * Loads `load()` when `deps` change; `pollMs(data)` > 0 reloads after that many milliseconds
 * (live progress without a page reload). A stale answer (deps changed since) is dropped.
 */
export function useResource<T>(load: () => Promise<T>, deps: readonly unknown[], pollMs?: (data: T) => number): Resource<T> {
  const [data, setData] = useState<T | undefined>(undefined);
  const [error, setError] = useState<string | undefined>(undefined);
  const [loading, setLoading] = useState(true);
  const [tick, setTick] = useState(0);
  const loadRef = useRef(load);
  loadRef.current = load;
  const pollRef = useRef(pollMs);
  pollRef.current = pollMs;

  // A layout effect: the call starts as soon as the page is rendered, not after the browser
  // paints (a frame or more on a loaded machine; docs/dashboard.md, "Benchmark").
  useLayoutEffect(() => {
    let current = true;
    let timer: ReturnType<typeof setTimeout> | undefined;
    setLoading(true);
    loadRef
      .current()
      .then((value) => {
        if (!current) return;
        setData(value);
        setError(undefined);
        const every = pollRef.current?.(value) ?? 0;
        if (every > 0) timer = setTimeout(() => setTick((t) => t + 1), every);
      })
      .catch((e: unknown) => {
        if (current) setError(errorMessage(e));
      })
      .finally(() => {
        if (current) setLoading(false);
      });
    return () => {
      current = false;
      if (timer) clearTimeout(timer);
    };
  }, [...deps, tick]);

  const reload = useCallback(() => setTick((t) => t + 1), []);
  return { data, error, loading, reload };
}

export function errorMessage(e: unknown): string {
  if (e instanceof ApiError) return e.message;
  if (e instanceof Error) return e.message;
  return String(e);
}

export interface Action {
  busy: boolean;
  error: string | undefined;
  notice: string | undefined;
  /**
   * Runs one API action; its error (the API's message) or `done` notice is shown by <Feedback>
   * (`done` may be a function, read once the action succeeded: a notice made from its answer).
   */
  run(fn: () => Promise<unknown>, done?: string | (() => string | undefined)): Promise<boolean>;
}

export function useAction(): Action {
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string | undefined>(undefined);
  const [notice, setNotice] = useState<string | undefined>(undefined);
  const run = useCallback(async (fn: () => Promise<unknown>, done?: string | (() => string | undefined)) => {
    setBusy(true);
    setError(undefined);
    setNotice(undefined);
    try {
      await fn();
      setNotice(typeof done === 'function' ? done() : done);
      return true;
    } catch (e) {
      setError(errorMessage(e));
      return false;
    } finally {
      setBusy(false);
    }
  }, []);
  return { busy, error, notice, run };
}
