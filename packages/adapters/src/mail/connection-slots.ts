// The port's own file, not the package: this runs on the SMTP threads, which load only what they use
// (docs/broadcasts-and-sending.md, "Memory").
import { MessageWithdrawn } from '@mailcast/send-engine';

interface Waiter {
  start(): void;
  withdraw(): void;
}

/**
 * One server's connections as slots: a message takes a slot before it is handed to the pool, so
 * the pool never queues a message of its own and every message not yet started waits here,
 * where it can still be withdrawn (a paused or aborted broadcast). Waiters start in order.
 */
export class ConnectionSlots {
  private busy = 0;
  private readonly waiting: Waiter[] = [];

  constructor(private readonly size: number) {}

  /** Resolves once the message holds a slot; rejects with MessageWithdrawn if `signal` aborts first. */
  take(signal?: AbortSignal): Promise<void> {
    if (signal?.aborted === true) return Promise.reject(new MessageWithdrawn());
    if (this.busy < this.size && this.waiting.length === 0) {
      this.busy++;
      return Promise.resolve();
    }
    return new Promise<void>((resolve, reject) => {
      const onAbort = () => waiter.withdraw();
      const waiter: Waiter = {
        start: () => {
          signal?.removeEventListener('abort', onAbort);
          this.busy++;
          resolve();
        },
        withdraw: () => {
          const index = this.waiting.indexOf(waiter);
          if (index === -1) return;
          this.waiting.splice(index, 1);
          reject(new MessageWithdrawn());
        },
      };
      this.waiting.push(waiter);
      signal?.addEventListener('abort', onAbort, { once: true });
    });
  }

  /** The message's slot is free again: the next waiter starts. */
  give(): void {
    this.busy--;
    const next = this.waiting.shift();
    next?.start();
  }
}
