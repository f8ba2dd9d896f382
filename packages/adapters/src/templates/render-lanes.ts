/**
 * Waiting renders per lane (a channel), served in turn rather than first come first served
 * (docs/templates.md, "Channels in turn"): each lane's oldest goes next, and its lane to the back
 * of the turns.
 */
export class RenderLanes<Task extends { lane: number }> {
  private readonly queues = new Map<number, Task[]>();
  /** The lanes that have any waiting, in the order of their turns. */
  private readonly turns: number[] = [];

  /** At the back of its lane, or at the front (a request handed back from a stopped thread). */
  add(task: Task, front = false): void {
    let queue = this.queues.get(task.lane);
    if (queue === undefined) {
      this.queues.set(task.lane, (queue = []));
      this.turns.push(task.lane);
    }
    if (front) queue.unshift(task);
    else queue.push(task);
  }

  /** The next lane's oldest request; the lane goes to the back of the turns. */
  next(): Task | undefined {
    const lane = this.turns.shift();
    if (lane === undefined) return undefined;
    const queue = this.queues.get(lane)!;
    const task = queue.shift()!;
    if (queue.length > 0) this.turns.push(lane);
    else this.queues.delete(lane);
    return task;
  }

  /** The lane has had its turn (its request cost a thread): to the back of the turns. */
  toBack(lane: number): void {
    const at = this.turns.indexOf(lane);
    if (at >= 0) this.turns.push(...this.turns.splice(at, 1));
  }

  /** Every waiting request, taken out. */
  drain(): Task[] {
    const all = [...this.queues.values()].flat();
    this.queues.clear();
    this.turns.length = 0;
    return all;
  }
}
