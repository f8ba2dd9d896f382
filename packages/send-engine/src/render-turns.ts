/**
 * One recipient's rendering per turn of the event loop (docs/security.md "HTML").
 *
 * The sending workers of a job (and every job of the process) would otherwise render back to
 * back: immediates queued together run in one check phase, so N workers' renders held the loop
 * for N renders. Here each turn is granted from the previous turn's immediate, which Node runs
 * on the loop's next iteration, after timers and I/O (webhooks, HTTP, lease heartbeats) had theirs.
 * A render is synchronous apart from resolved promises, so it ends within its turn.
 */
export class RenderTurns {
  private readonly waiting: Array<() => void> = [];
  private scheduled = false;

  /** @param nextTurn runs a function on the event loop's next turn (Timers.nextTurn) */
  constructor(private readonly nextTurn: (fn: () => void) => void) {}

  take(): Promise<void> {
    return new Promise<void>((resolve) => {
      this.waiting.push(resolve);
      this.schedule();
    });
  }

  private schedule(): void {
    if (this.scheduled || this.waiting.length === 0) return;
    this.scheduled = true;
    this.nextTurn(() => {
      this.scheduled = false;
      this.waiting.shift()?.();
      this.schedule();
    });
  }
}
