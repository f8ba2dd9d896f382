// Create a subscriber, then find it again by email. Against `npm start`, the token is the one
// it printed (also in .data/dev-token). Type-checked by `npm run typecheck:tests`.
import { MailcastClient, MailcastError } from '@mailcast/client';

export async function main(): Promise<void> {
  const mailcast = new MailcastClient({ baseUrl: 'http://localhost:3000', token: process.env.MAILCAST_TOKEN ?? '' });

  try {
    const created = await mailcast.subscribers.create({
      email: 'ada@example.com',
      first_name: 'Ada',
      tags: ['newsletter'],
      custom_data: { plan: 'pro' },
    });
    console.log('subscriber', created.id);
  } catch (error) {
    // 422 with field errors, e.g. { email: ['is invalid'] }
    if (error instanceof MailcastError && error.errors) console.error(error.errors);
    throw error;
  }

  // Double opt-in: the answer carries the confirmation_url sent by email.
  const pending = await mailcast.subscribers.create({ email: 'grace@example.com' }, { double_opt_in: { reply_to: 'team@example.com' } });
  console.log(pending);

  const found = await mailcast.subscribers.find('ADA@example.com');
  const page = await mailcast.subscribers.list({ tags: ['newsletter'], custom_data: { plan: 'pro' }, page: 1 });
  console.log(found.email, page.pagination.total);
}
