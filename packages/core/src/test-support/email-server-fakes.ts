import type { SmtpHostPolicy } from '../ports';

/**
 * The address policy as a table: hosts listed in `refused` are refused with their reason, hosts
 * in `loopback` stand for this machine, any other host is allowed and not loopback. Records
 * what it was asked, so a test can tell when no look-up happened.
 */
export class TableSmtpHosts implements SmtpHostPolicy {
  readonly asked: string[] = [];

  constructor(
    private readonly table: { loopback?: readonly string[]; refused?: Readonly<Record<string, string>> } = {
      loopback: ['127.0.0.1', 'localhost'],
    },
  ) {}

  async refusal(host: string): Promise<string | null> {
    this.asked.push(`refusal ${host}`);
    return this.table.refused?.[host] ?? null;
  }

  async isLoopback(host: string): Promise<boolean> {
    this.asked.push(`loopback ${host}`);
    return this.table.loopback?.includes(host) ?? false;
  }
}
