import {
  ConfigToken,
  InboundRefused,
  SnsReceiver,
  verifyMailgun,
  verifyPostmark,
  verifySendgrid,
  type Config,
  type VerifiedNotification,
} from '@mailcast/adapters';
import { Clock, RecordNotification } from '@mailcast/core';
import express, { Router, type Request, type Response } from 'express';
import type { DependencyContainer } from 'tsyringe';

/** A provider's batch is small; SES notifications with their original headers are the largest. */
export const INBOUND_BODY_LIMIT = '1mb';

/**
 * The public bounce and complaint receivers (docs/bounces.md): no API token; each verifies its
 * provider's signature (or credentials) on the raw body before anything is parsed or written.
 * A receiver whose secret is not configured answers 404. Answers: 200 with what was recorded;
 * 400 malformed; 401 forged, stale or replayed.
 */
export function inboundRoutes(container: DependencyContainer): Router {
  const config = container.resolve<Config>(ConfigToken).inbound;
  const clock = container.resolve<Clock>(Clock);
  const now = () => clock.now().getTime();
  const router = Router();
  const raw = express.raw({ type: () => true, limit: INBOUND_BODY_LIMIT });

  const receive =
    (source: string, verify: (req: Request, body: Buffer) => Promise<VerifiedNotification & { before?: () => Promise<void> }> | null) =>
    async (req: Request, res: Response) => {
      const body = Buffer.isBuffer(req.body) ? req.body : Buffer.alloc(0);
      const pending = verify(req, body);
      if (pending === null) {
        res.status(404).json({ error: 'Not found' });
        return;
      }
      try {
        const verified = await pending;
        await verified.before?.();
        const outcome = await container.resolve(RecordNotification).execute({ source, replayKey: verified.replayKey, reports: verified.reports });
        if (outcome.replayed) throw new InboundRefused(401, 'Notification was already received');
        const count = (kind: string) => outcome.results.filter((r) => r === kind).length;
        res.json({ recorded: count('recorded'), duplicate: count('duplicate'), unknown: count('unknown') });
      } catch (error) {
        if (!(error instanceof InboundRefused)) throw error;
        res.status(error.status).json({ error: error.message });
      }
    };

  const sns = config.ses ? new SnsReceiver(config.ses) : null;
  router.post(
    '/inbound/ses',
    raw,
    receive('ses', (_req, body) =>
      sns === null
        ? null
        : sns.verify(body, now()).then((v) => ({
            ...v,
            // Confirmed before the message is remembered: a failed confirmation can be delivered again.
            before: v.subscribeUrl === null ? undefined : () => sns.confirm(v.subscribeUrl!),
          })),
    ),
  );
  router.post(
    '/inbound/postmark',
    raw,
    receive('postmark', (req, body) =>
      config.postmark === null
        ? null
        : Promise.resolve().then(() => verifyPostmark(body, req.get('authorization'), config.postmark!.username, config.postmark!.password)),
    ),
  );
  router.post(
    '/inbound/mailgun',
    raw,
    receive('mailgun', (_req, body) => (config.mailgun === null ? null : Promise.resolve().then(() => verifyMailgun(body, config.mailgun!.signingKey, now())))),
  );
  router.post(
    '/inbound/sendgrid',
    raw,
    receive('sendgrid', (req, body) =>
      config.sendgrid === null
        ? null
        : Promise.resolve().then(() =>
            verifySendgrid(
              body,
              req.get('x-twilio-email-event-webhook-signature'),
              req.get('x-twilio-email-event-webhook-timestamp'),
              config.sendgrid!.publicKey,
              now(),
            ),
          ),
    ),
  );
  return router;
}
