/**
 * Who an email is from, and through which email servers it goes: one rule for broadcasts,
 * confirmation emails and transactionals alike (docs/broadcasts-and-sending.md, "Sender and
 * servers").
 */

/** The from-address fields an email server or a channel may carry. */
export interface SenderFields {
  fromEmail: string | null;
  fromName: string | null;
}

export interface SenderAddress {
  email: string;
  name: string | null;
}

/** The address used when neither the email server nor the channel has one. */
export function fallbackSenderEmail(publicHost: string): string {
  return `no-reply@${publicHost}`;
}

/**
 * The email server's from address, else the channel's, else no-reply@<public host>. The name
 * goes with the address: the name of the side whose address is used, else the other side's, else
 * the channel's own name.
 */
export function senderAddress(server: SenderFields, channel: (SenderFields & { name: string }) | null, publicHost: string): SenderAddress {
  const [first, second] = server.fromEmail === null && channel?.fromEmail ? [channel, server] : [server, channel];
  return {
    email: server.fromEmail ?? channel?.fromEmail ?? fallbackSenderEmail(publicHost),
    name: first?.fromName ?? second?.fromName ?? channel?.name ?? null,
  };
}

/** What a broadcast says about its email servers. */
export interface ServerChoice {
  emailServerIds: readonly number[];
  useAnyEmailServer: boolean;
}

/**
 * The email servers a broadcast can send through: with none named, or use_any_email_server, all
 * of the channel's; else the named ones that still exist (possibly none: then it cannot send).
 */
export function usableEmailServers<Server extends { id: number; active?: boolean }>(choice: ServerChoice, channelServers: readonly Server[]): Server[] {
  // A server switched off (`active: false`) sends nothing until switched on again.
  const active = channelServers.filter((s) => s.active !== false);
  if (choice.useAnyEmailServer || choice.emailServerIds.length === 0) return active;
  return active.filter((s) => choice.emailServerIds.includes(s.id));
}

/**
 * The email server one email goes through (a confirmation, a transactional), by the broadcast's
 * rule: the named one while it exists and is switched on, else (none named) the channel's first.
 */
export function emailServerFor<Server extends { id: number; active?: boolean }>(
  channelServers: readonly Server[],
  emailServerId: number | null = null,
): Server | undefined {
  const choice = { emailServerIds: emailServerId === null ? [] : [emailServerId], useAnyEmailServer: false };
  return usableEmailServers(choice, channelServers)[0];
}
