import type { BounceReport } from '@mailcast/core';
import { dsnBounceKind, parseVerpAddress } from '@mailcast/domain';
import PostalMime from 'postal-mime';

/** One per-recipient block of an RFC 3464 report. */
interface RecipientStatus {
  action?: string;
  status?: string;
  diagnostic?: string;
  finalRecipient?: string;
}

/** The fields of a `message/delivery-status` body: a per-message block, then one block per recipient. */
export function deliveryStatusRecipients(text: string): RecipientStatus[] {
  const unfolded = text.replace(/\r\n/g, '\n').replace(/\n[ \t]+/g, ' ');
  const blocks = unfolded.split(/\n\s*\n/).map((block) => {
    const fields = new Map<string, string>();
    for (const line of block.split('\n')) {
      const m = /^([A-Za-z0-9-]+)\s*:\s*(.*)$/.exec(line);
      if (m) fields.set(m[1]!.toLowerCase(), m[2]!.trim());
    }
    return fields;
  });
  return blocks
    .filter((f) => f.has('action') || f.has('final-recipient'))
    .map((f) => ({
      action: f.get('action'),
      status: f.get('status'),
      diagnostic: f.get('diagnostic-code'),
      finalRecipient: f.get('final-recipient')?.replace(/^[^;]*;\s*/, ''),
    }));
}

/**
 * What a message delivered to a VERP address says (docs/bounces.md): a report for the recipient
 * the address names when the message is an RFC 3464 report with a failed recipient; none for
 * anything else (an auto-reply, a delay notice). The token is verified when it is recorded.
 */
export async function dsnReports(raw: Buffer, envelopeRecipients: readonly string[]): Promise<BounceReport[]> {
  const parsed = await PostalMime.parse(raw);
  const statusPart = parsed.attachments.find((a) => /^message\/(global-)?delivery-status$/i.test(a.mimeType));
  if (statusPart === undefined) return [];
  const content = typeof statusPart.content === 'string' ? statusPart.content : new TextDecoder().decode(statusPart.content);
  const failed = deliveryStatusRecipients(content)
    .map((r) => ({ r, kind: dsnBounceKind(r.action, r.status) }))
    .find((x) => x.kind !== null);
  if (failed === undefined) return [];
  const reason = failed.r.diagnostic ?? failed.r.status ?? 'failed';
  return envelopeRecipients.flatMap((address) => {
    const verp = parseVerpAddress(address);
    return verp === null ? [] : [{ source: 'dsn', kind: failed.kind!, verp, reason }];
  });
}
