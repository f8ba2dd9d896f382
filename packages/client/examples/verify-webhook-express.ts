// Receive Mailcast webhooks in Express: verify the signature over the raw body, then handle.
import { verifyWebhook, type WebhookEnvelope } from '@mailcast/client';
import express from 'express';

const app = express();
const secret = process.env.MAILCAST_WEBHOOK_SECRET ?? ''; // from webhookEndpoints.create(...).secret

// The raw body, exactly as sent: a re-serialized object would not match the signature.
app.post('/mailcast/webhooks', express.raw({ type: 'application/json' }), (req, res) => {
  const result = verifyWebhook(secret, req.headers, req.body as Buffer);
  if (!result.ok) {
    res.status(400).json({ error: result.reason });
    return;
  }
  const event = JSON.parse((req.body as Buffer).toString('utf8')) as WebhookEnvelope;
  // The same event may arrive more than once: deduplicate by event.id (= result.id).
  console.log(event.type, event.id);
  res.sendStatus(204);
});

export { app };
