import { MessageWithdrawn, type Clearance } from './ports';
import type { ServerLane } from './server-lane';
import type { SlotTicket } from './slot';

/** A message got no slot: it goes back to the queue until `until` (null: a while), never failing. */
export class NoSlot extends Error {
  constructor(
    readonly until: number | null,
    message: string,
  ) {
    super(message);
    this.name = 'NoSlot';
  }
}

/**
 * How one message takes its slot in a lane (docs/sending-limits.md). Usually the clearance takes
 * it, once the message holds an open connection: the permit, held from the slot's instant, is then
 * not held while a connection opens or the message waits for one, and while permits are scarce
 * the envelope is done by the time the slot comes. While a throttling cap is in force the slot is
 * taken before the message starts (`takeNow`), so that its envelope, which such a server may
 * refuse, keeps to the slower pace too.
 */
export class SlotClearance {
  private ticket: SlotTicket | null = null;
  private finished = false;

  constructor(
    private readonly lane: ServerLane,
    private readonly signal: AbortSignal | undefined,
  ) {}

  async takeNow(): Promise<void> {
    this.ticket = await this.take();
  }

  /** What the message's content waits for: its slot (taken now if not yet) and the slot's instant. */
  readonly clearance: Clearance = async () => {
    this.ticket ??= await this.take();
    await this.ticket.clearance?.();
  };

  /** The message ended (Mailer.send answered): its slot, if it has one, is given back. */
  finish(): void {
    this.finished = true;
    this.ticket?.done();
    this.ticket = null;
  }

  private async take(): Promise<SlotTicket> {
    let slot: Awaited<ReturnType<ServerLane['acquire']>>;
    try {
      slot = await this.lane.acquire(this.signal);
    } catch (error) {
      if (error instanceof MessageWithdrawn) throw error;
      // The shared limits cannot be read (database away): nothing is sent without a slot.
      throw new NoSlot(null, 'Sending limits of the email server unavailable');
    }
    if ('defer' in slot) throw new NoSlot(slot.defer, 'Sending limit of the email server reached');
    if (this.finished) {
      // The message ended without needing it (refused before its content): the slot goes back.
      slot.done();
      throw new MessageWithdrawn();
    }
    return slot;
  }
}
