import { MessageWithdrawn } from '../ports';

/** Waits a message to a limited server makes, which a pause or an abort cuts short. */
export const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));
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
