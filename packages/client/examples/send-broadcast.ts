// Draft a broadcast, send it, and read its statistics.
import { MailcastClient, MailcastError } from '@mailcast/client';

export async function main(): Promise<void> {
  const mailcast = new MailcastClient({ baseUrl: 'http://localhost:3000', token: process.env.MAILCAST_TOKEN ?? '' });

  const { id } = await mailcast.broadcasts.create({
    name: 'November newsletter',
    subject: 'Hello {{ subscriber.first_name }}',
    body: 'What is new this month…',
    track_opens: true,
    track_clicks: true,
  });

  try {
    const sent = await mailcast.broadcasts.send(id);
    console.log(sent.status); // "scheduled": queued for immediate sending
  } catch (error) {
    if (error instanceof MailcastError && error.status === 429) {
      console.error(`rate limited, retry in ${error.retryAfterSeconds} s`);
    }
    throw error;
  }

  // Or later: schedule it (wall-clock time in the given timezone).
  // await mailcast.broadcasts.schedule(id, { scheduled_send_at: '2026-12-01T09:00:00', scheduled_timezone: 'Europe/Berlin' });

  const stats = await mailcast.broadcasts.statistics(id);
  const timeline = await mailcast.broadcasts.timeline(id, { timeframe: '6h', metrics: ['Delivered', 'Opens'] });
  const links = await mailcast.broadcasts.links(id, { sort: 'unique', limit: 10 });
  console.log(stats.delivery.delivery_rate, timeline.interval, links.total_clicks);
}
