import type { FormSubmissionRepository, PendingFormActions, Subscriber, TakenFormActions, TopicStorage } from '../ports';

/** Opt-in form submissions are tested against PostgreSQL; a confirmation finds nothing held. */
export class FakeFormSubmissions implements FormSubmissionRepository {
  readonly pending: PendingFormActions[] = [];
  async holdPending(actions: PendingFormActions): Promise<void> {
    this.pending.push(actions);
  }
  async takePending(subscriberId: number): Promise<TakenFormActions[]> {
    const taken = this.pending.filter((p) => p.subscriberId === subscriberId);
    this.pending.splice(0, this.pending.length, ...this.pending.filter((p) => p.subscriberId !== subscriberId));
    return taken.map((p) => ({ ...p, confirmationRedirectUrl: null }));
  }
  async dropPending(subscriberId: number): Promise<void> {
    await this.takePending(subscriberId);
  }
  claimWelcome(): Promise<boolean> {
    return Promise.reject(new Error('welcome emails are not faked'));
  }
  recordWelcome(): Promise<void> {
    return Promise.reject(new Error('welcome emails are not faked'));
  }
  countSubmission(): Promise<void> {
    return Promise.reject(new Error('form counters are not faked'));
  }
  insertSubscriberCounted(): Promise<Subscriber | null> {
    return Promise.reject(new Error('form counters are not faked'));
  }
  topics(): Promise<TopicStorage[]> {
    return Promise.reject(new Error('topics are not faked'));
  }
}
