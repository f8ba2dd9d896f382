/**
 * Benchmark only (bench/tracking-cpu.ts): preloaded with `node --import` into a second api
 * process, it takes the machine classification (docs/engagement.md) out of the tracking routes
 * so their CPU can be compared with the classified api's in the same run. Nothing in the api
 * reads it or knows of it; the product has no switch to turn classification off.
 *
 * What it removes is what classification added to the routes, and nothing else:
 * - the maintained bot list (`isbot`) the edge asks for every request's agent;
 * - the rules (`classifyEngagement`), answering `machine: null` as an unclassified open or
 *   click was recorded before issue 40, so record() writes no human figures either;
 * - the click context (the email's link count and its clicks of the last 5 s, read in the
 *   statement that marks the click) and the row lock taken before it so concurrent clicks see
 *   each other: the click is marked by the plain statement, and the recipient read unlocked.
 * The pixel and the redirect, the token check, the repeat window, the event, its aggregates and
 * the outbox event are the same code as the classified api's.
 */
import Module, { createRequire } from 'node:module';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const api = path.join(path.dirname(fileURLToPath(import.meta.url)), '..', 'apps', 'api', 'dist', 'main.js');
// The api's own resolution, so these are the very modules it loads (CommonJS, cached once).
const load = createRequire(api);

const original = Module._load;
Module._load = function (request, parent, isMain) {
  const loaded = original.call(this, request, parent, isMain);
  return request === 'isbot' ? { ...loaded, isbot: () => false } : loaded;
};

const engagement = load(path.join(path.dirname(load.resolve('@mailcast/domain')), 'engagement.js'));
engagement.classifyEngagement = () => ({ machine: null, machine_reason: null, retroactive: [] });

const store = load('@mailcast/adapters').PgRecipientStore.prototype;
const findTracked = store.findTracked;
store.findTracked = function (recipientId) {
  return findTracked.call(this, recipientId);
};
store.markClicked = async function (click) {
  const counted = await this.markEngaged(click.recipientId, 'clicked', click.at, click.windowStart, click.linkId);
  return counted ? { linkCount: 0, earlierClicks: [] } : null;
};
