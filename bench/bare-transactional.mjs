// @ts-check
/**
 * The transactional benchmark's ceiling: a bare Express handler doing the inserts a transactional
 * create does (subscriber if absent, the transactionals row, the pg-boss job and its NOTIFY) in
 * one transaction, with none of Mailcast's other work (auth, validation, Liquid, presenters).
 */
import express from 'express';
import pg from 'pg';

const pool = new pg.Pool({ connectionString: process.env.DATABASE_URL, max: 10 });
const channelId = Number(process.env.CHANNEL_ID);
const app = express();
app.use(express.json({ limit: '1mb' }));
app.post('/{*path}', async (req, res) => {
  const client = await pool.connect();
  try {
    const { to, subject, body } = req.body;
    await client.query('BEGIN');
    const inserted = await client.query(
      `INSERT INTO subscribers (channel_id, email, source) VALUES ($1, $2, 'transactional') ON CONFLICT DO NOTHING RETURNING id`,
      [channelId, to],
    );
    const subscriberId =
      inserted.rows[0]?.id ?? (await client.query('SELECT id FROM subscribers WHERE channel_id = $1 AND email = $2', [channelId, to])).rows[0].id;
    const now = new Date();
    const row = await client.query(
      `INSERT INTO transactionals (channel_id, subscriber_id, to_email, subject, body, status, created_at, updated_at)
       VALUES ($1, $2, $3, $4, $5, 'queued', $6, $6) RETURNING id, to_email, subject, status, created_at`,
      [channelId, subscriberId, to, subject, body, now],
    );
    await client.query(`INSERT INTO pgboss.job (name, data, retry_limit) VALUES ('transactionals.send', $1, 0)`, [{ transactionalId: row.rows[0].id }]);
    await client.query(`SELECT pg_notify('mailcast_jobs', 'transactionals.send')`);
    await client.query('COMMIT');
    const r = row.rows[0];
    res.status(201).json({ id: Number(r.id), to: r.to_email, subject: r.subject, status: r.status, created_at: r.created_at });
  } catch (error) {
    await client.query('ROLLBACK').catch(() => undefined);
    res.status(500).json({ error: String(error) });
  } finally {
    client.release();
  }
});
app.get('/healthz', (_req, res) => res.json({ ok: true }));
const server = app.listen(Number(process.env.PORT), '127.0.0.1');
process.on('SIGTERM', () => server.close(() => pool.end().then(() => process.exit(0))));
