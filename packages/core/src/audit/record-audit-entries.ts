import { inject, injectable } from 'tsyringe';
import { AuditLog, type NewAuditEntry } from '../ports';

/** Keeps writes in the audit log (docs/teams.md, "Audit log"); the api batches them after the responses. */
@injectable()
export class RecordAuditEntries {
  constructor(@inject(AuditLog) private readonly auditLog: AuditLog) {}

  async execute(entries: readonly NewAuditEntry[]): Promise<void> {
    if (entries.length > 0) await this.auditLog.append(entries);
  }
}
