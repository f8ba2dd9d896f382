import { injectable } from 'tsyringe';
import type { OptInForm } from '../ports';

/*
 * PLACEHOLDER until the forms-submission branch lands on main: the signature the public
 * submission route is written against. Merging main replaces this file with the real use case.
 */
export interface OptInSubmission {
  form: OptInForm;
  email: string;
  firstName?: string | null;
  lastName?: string | null;
  customData: Record<string, unknown>;
  topics: Record<string, boolean>;
  ipAddress: string | null;
}

@injectable()
export class SubmitOptInForm {
  execute(_input: OptInSubmission): Promise<{ status: 'subscribed' | 'confirmation_required'; message: string }> {
    return Promise.reject(new Error('SubmitOptInForm is not merged yet'));
  }
}
