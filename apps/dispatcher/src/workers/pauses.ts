/**
 * The sleeps of a worker loop between polls, which `wake()` cuts short: at stop, so the loop
 * ends at once, or when there is news (room freed) that makes waiting out the pause pointless.
 * It wakes every pause under way, for loops that share one stop.
 */
export class Pauses {
  private readonly wakes = new Set<() => void>();

  pause(ms: number): Promise<void> {
    return new Promise((resolve) => {
      const wake = () => {
        clearTimeout(timer);
        this.wakes.delete(wake);
        resolve();
      };
      const timer = setTimeout(wake, ms);
      this.wakes.add(wake);
    });
  }

  wake(): void {
    for (const wake of [...this.wakes]) wake();
  }
}
