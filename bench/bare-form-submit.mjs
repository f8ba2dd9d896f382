// @ts-check
/**
 * The forms benchmark's ceiling: a bare `node:http` server with a `pg` Pool (10 connections, the
 * api's pool size) doing what the api does for one valid submission of a form without double
 * opt-in, to the same tables of the same database: the form and its blocks read by identifier,
 * then in one transaction the subscriber inserted (source opt_in_form, the form's tags) with its
 * `subscriber.created` outbox event, and the submission counted in a random shard of the day's
 * row of opt_in_form_daily_statistics. No validation beyond what the SQL needs, no limits, no
 * framework.
 */
import { randomInt } from 'node:crypto';
import http from 'node:http';
import pg from 'pg';

const pool = new pg.Pool({ connectionString: process.env.DATABASE_URL, max: 10 });

const eventData = (row) => ({
  subscriber_id: Number(row.id),
  email: row.email,
  first_name: row.first_name,
  last_name: row.last_name,
  subscribed_at: row.subscribed_at.toISOString(),
  unsubscribed_at: null,
  is_active: row.is_active,
  custom_data: row.custom_data,
  source: row.source,
});

async function submit(identifier, body, ip) {
  const forms = await pool.query('SELECT * FROM opt_in_forms WHERE identifier = $1 AND enabled', [identifier]);
  const form = forms.rows[0];
  if (form === undefined) return { status: 404, answer: { error: 'Not found' } };
  await pool.query('SELECT * FROM opt_in_form_blocks WHERE form_id = $1 ORDER BY placement, position, id', [form.id]);
  const now = new Date();
  const client = await pool.connect();
  try {
    await client.query('BEGIN');
    const { rows } = await client.query(
      `INSERT INTO subscribers (channel_id, email, first_name, ip_address, source, tags, custom_data, subscribed_at, created_at, updated_at)
       VALUES ($1, $2, $3, $4, 'opt_in_form', $5, $6, $7, $7, $7)
       ON CONFLICT (channel_id, email) DO NOTHING RETURNING *`,
      [
        form.channel_id,
        String(body.email).trim().toLowerCase(),
        body.first_name ?? null,
        ip,
        form.automation_settings.tag_list ?? [],
        JSON.stringify(body.custom_data ?? {}),
        now,
      ],
    );
    if (rows[0] !== undefined) {
      await client.query('INSERT INTO events (channel_id, type, data, created_at) VALUES ($1, $2, $3, $4)', [
        form.channel_id,
        'subscriber.created',
        JSON.stringify(eventData(rows[0])),
        now,
      ]);
    }
    await client.query(
      `INSERT INTO opt_in_form_daily_statistics (form_id, day, shard, submissions) VALUES ($1, $2::date, $3, 1)
       ON CONFLICT (form_id, day, shard) DO UPDATE SET submissions = opt_in_form_daily_statistics.submissions + 1`,
      [form.id, now.toISOString().slice(0, 10), randomInt(8)],
    );
    await client.query('COMMIT');
    return { status: 200, answer: { status: 'subscribed', message: 'Thank you for subscribing!' } };
  } catch (error) {
    await client.query('ROLLBACK').catch(() => undefined);
    throw error;
  } finally {
    client.release();
  }
}

const server = http.createServer((req, res) => {
  const send = (status, answer) => {
    const text = JSON.stringify(answer);
    res.writeHead(status, { 'content-type': 'application/json; charset=utf-8', 'content-length': Buffer.byteLength(text) });
    res.end(text);
  };
  if (req.method === 'GET') {
    send(200, { ok: true });
    return;
  }
  const match = /^\/f\/([0-9a-f-]{36})\/submit$/.exec(req.url ?? '');
  const chunks = [];
  req.on('data', (c) => chunks.push(c));
  req.on('end', () => {
    let body;
    try {
      body = JSON.parse(Buffer.concat(chunks).toString('utf8'));
    } catch {
      send(400, { error: 'Invalid JSON' });
      return;
    }
    if (match === null) {
      send(404, { error: 'Not found' });
      return;
    }
    submit(match[1], body, String(req.headers['x-forwarded-for'] ?? req.socket.remoteAddress)).then(
      ({ status, answer }) => send(status, answer),
      (error) => send(500, { error: String(error?.message ?? error) }),
    );
  });
});
server.listen(Number(process.env.PORT), '127.0.0.1');
process.on('SIGTERM', () => server.close(() => pool.end().then(() => process.exit(0))));
