import type { DashboardLinks } from '@mailcast/core';
import { passwordResetUrl } from '@mailcast/domain';

/** The dashboard's pages under PUBLIC_URL (docs/teams.md, Password resets). */
export class ConfigDashboardLinks implements DashboardLinks {
  constructor(private readonly publicUrl: string) {}

  passwordReset(token: string): string {
    return passwordResetUrl(this.publicUrl, token);
  }
}
