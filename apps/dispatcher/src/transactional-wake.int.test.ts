import { eventually } from '@mailcast/testkit';
import { HANDLERS, type JobHandler } from './handlers';
import { useSendingHarness } from './test-support/sending-harness';

/**
 * A transactional's job is announced with NOTIFY at commit and fetched at once: here the queue's
 * poll is a minute apart, so only the notification can explain a prompt send.
 */
describe('transactional jobs are fetched on NOTIFY, not at the next poll', () => {
  const slowPoll = HANDLERS.map((handler): JobHandler => (handler.queue === 'transactionals.send' ? { ...handler, idleMs: 60_000 } : handler));
  let emptyFetches = 0;
  const onFetch = (queue: string, jobs: number) => (emptyFetches += queue === 'transactionals.send' && jobs === 0 ? 1 : 0);
  const h = useSendingHarness({ handlers: slowPoll, onFetch });
  // Once the loop's first fetch came back empty, it is asleep in its minute-long pause.
  beforeAll(() => eventually(async () => (emptyFetches > 0 ? true : undefined), 10_000, 10), 15_000);

  it('sends within seconds although the queue is polled once a minute', async () => {
    for (const to of ['first@example.com', 'second@example.com']) {
      const res = await h.request('POST', '/api/v1/transactionals.json', { to, subject: 'S', body: 'B' });
      expect(res.status).toBe(201);
      await eventually(async () => h.received(to)[0], 10_000, 10);
    }
  }, 30_000);
});
