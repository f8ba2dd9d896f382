// @ts-check
/**
 * The load benchmark's ceiling: a bare Express app on the same machine, parsing JSON bodies and
 * answering small JSON documents, with none of Mailcast's work (auth, rate limit, database).
 */
import express from 'express';

const app = express();
app.use(express.json({ limit: '1mb' }));
app.get('/{*path}', (_req, res) => {
  res.json({ ok: true });
});
app.post('/{*path}', (req, res) => {
  res.status(201).json({ received: Object.keys(req.body ?? {}).length });
});
const server = app.listen(Number(process.env.PORT), '127.0.0.1', () => {
  process.send?.('listening');
});
process.on('SIGTERM', () => server.close(() => process.exit(0)));
