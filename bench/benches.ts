import type { Bench } from './harness';
import { webhooksBench } from './webhooks.bench';

/** Every benchmark `npm run bench` runs, in report order. Each lives in bench/<name>.bench.ts. */
export const BENCHES: readonly Bench[] = [webhooksBench];
