import type { EmailServer } from '@mailcast/core';
import { redactPassword } from '@mailcast/domain';

/** An email server as answers show it: the password redacted, the DKIM key never. */
export function presentEmailServer(s: EmailServer) {
  return {
    id: s.id,
    name: s.name,
    host: s.host,
    port: s.port,
    tls: s.tls,
    smtp_username: s.username,
    smtp_password: s.password === null ? null : redactPassword(s.password),
    from_email: s.fromEmail,
    from_name: s.fromName,
    max_per_second: s.maxPerSecond,
    max_per_minute: s.maxPerMinute,
    max_per_hour: s.maxPerHour,
    max_per_day: s.maxPerDay,
    dkim_domain: s.dkimDomain,
    dkim_selector: s.dkimSelector,
    bounce_domain: s.bounceDomain,
    dkim_key_present: s.dkimPrivateKey !== null,
    active: s.active,
    deactivated_reason: s.deactivatedReason ?? null,
    created_at: s.createdAt.toISOString(),
    updated_at: s.updatedAt.toISOString(),
  };
}
