import { MessageWithdrawn } from './ports';

/** `wait`, unless `signal` aborts first: then MessageWithdrawn. */
export function until(wait: Promise<void>, signal: AbortSignal | undefined): Promise<void> {
  if (signal === undefined) return wait;
  if (signal.aborted) return Promise.reject(new MessageWithdrawn());
  return new Promise<void>((resolve, reject) => {
    const abort = () => reject(new MessageWithdrawn());
    signal.addEventListener('abort', abort, { once: true });
    void wait.then(() => {
      signal.removeEventListener('abort', abort);
      resolve();
    });
  });
}
