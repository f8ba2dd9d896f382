import { apiLoadBench } from './api-load.bench';
import { capacityBench } from './capacity.bench';
import { dashboardBench } from './dashboard.bench';
import { formsBench } from './forms.bench';
import type { Bench } from './harness';
import { listQueriesBench } from './list-queries.bench';
import { importBench } from './import.bench';
import { segmentsBench } from './segments.bench';
import { sendingBench } from './sending.bench';
import { sequencesBench } from './sequences.bench';
import { statisticsBench } from './statistics.bench';
import { subscribersBench } from './subscribers.bench';
import { transactionalBench } from './transactional.bench';
import { webhooksBench } from './webhooks.bench';

/** Every benchmark `npm run bench` runs, in report order. Each lives in bench/<name>.bench.ts. */
export const BENCHES: readonly Bench[] = [
  subscribersBench,
  listQueriesBench,
  sendingBench,
  statisticsBench,
  dashboardBench,
  webhooksBench,
  apiLoadBench,
  segmentsBench,
  transactionalBench,
  sequencesBench,
  formsBench,
  importBench,
  capacityBench,
];
