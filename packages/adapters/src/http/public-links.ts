import type { PublicLinks } from '@mailcast/core';

/** Links under PUBLIC_URL (docs/operations.md), served by the api's public pages. */
export class ConfigPublicLinks implements PublicLinks {
  constructor(private readonly publicUrl: string) {}

  confirmation(token: string): string {
    return `${this.publicUrl}/confirm/${token}`;
  }

  confirmationUnsubscribe(token: string): string {
    return `${this.publicUrl}/confirm/${token}/unsubscribe`;
  }

  archive(slug: string, rest?: string): string {
    return `${this.publicUrl}/archive/${slug}${rest === undefined ? '' : `/${rest}`}`;
  }

  webView(token: string): string {
    return `${this.publicUrl}/w/${token}`;
  }
}
