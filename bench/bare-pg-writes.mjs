// @ts-check
/**
 * The write-path ceiling (issue 21): a bare `node:http` server with a `pg` Pool (10 connections,
 * the api's pool size) making the api's writes, in one transaction each, to the same tables of
 * the same database: POST /subscribers inserts the subscriber row and its `subscriber.created`
 * outbox event; PATCH /subscribers updates a subscriber found by address and records its
 * `subscriber.updated` event. No auth, no validation beyond what the SQL needs, no framework.
 * CHANNEL_ID names the channel the rows belong to.
 */
import http from 'node:http';
import pg from 'pg';

const pool = new pg.Pool({ connectionString: process.env.DATABASE_URL, max: 10 });
const channelId = Number(process.env.CHANNEL_ID);

const present = (row) => ({
  id: Number(row.id),
  email: row.email,
  first_name: row.first_name,
  last_name: row.last_name,
  ip_address: row.ip_address,
  is_active: row.is_active,
  source: row.source,
  subscribed_at: row.subscribed_at.toISOString(),
  unsubscribed_at: row.unsubscribed_at === null ? null : row.unsubscribed_at.toISOString(),
  confirmed_at: row.confirmed_at === null ? null : row.confirmed_at.toISOString(),
  created_at: row.created_at.toISOString(),
  tags: row.tags,
  custom_data: row.custom_data,
});

const eventData = (row) => ({
  subscriber_id: Number(row.id),
  email: row.email,
  first_name: row.first_name,
  last_name: row.last_name,
  subscribed_at: row.subscribed_at.toISOString(),
  unsubscribed_at: row.unsubscribed_at === null ? null : row.unsubscribed_at.toISOString(),
  is_active: row.is_active,
  custom_data: row.custom_data,
  source: row.source,
});

const INSERT_EVENT = 'INSERT INTO events (channel_id, type, data, created_at) VALUES ($1, $2, $3, $4)';

/** One transaction on one pooled connection; rolled back on any error. */
async function inTransaction(work) {
  const client = await pool.connect();
  try {
    await client.query('BEGIN');
    const result = await work(client);
    await client.query('COMMIT');
    return result;
  } catch (error) {
    await client.query('ROLLBACK').catch(() => undefined);
    throw error;
  } finally {
    client.release();
  }
}

async function create(body) {
  const s = body.subscriber;
  const now = new Date();
  return inTransaction(async (client) => {
    const { rows } = await client.query(
      `INSERT INTO subscribers (channel_id, email, first_name, last_name, tags, custom_data, subscribed_at, created_at, updated_at)
       VALUES ($1, $2, $3, $4, $5, $6, $7, $7, $7)
       ON CONFLICT (channel_id, email) DO NOTHING RETURNING *`,
      [channelId, String(s.email).toLowerCase(), s.first_name ?? null, s.last_name ?? null, s.tags ?? [], JSON.stringify(s.custom_data ?? {}), now],
    );
    if (rows.length === 0) return { status: 200, answer: { email: s.email } };
    await client.query(INSERT_EVENT, [channelId, 'subscriber.created', JSON.stringify(eventData(rows[0])), now]);
    return { status: 201, answer: present(rows[0]) };
  });
}

async function update(body) {
  const s = body.subscriber;
  const now = new Date();
  return inTransaction(async (client) => {
    const { rows } = await client.query(
      `UPDATE subscribers SET first_name = COALESCE($3, first_name), tags = COALESCE($4, tags), updated_at = $5
        WHERE channel_id = $1 AND email = $2 RETURNING *`,
      [channelId, String(body.email ?? s.email).toLowerCase(), s.first_name ?? null, s.tags ?? null, now],
    );
    if (rows.length === 0) return { status: 404, answer: { error: 'Subscriber not found' } };
    await client.query(INSERT_EVENT, [channelId, 'subscriber.updated', JSON.stringify(eventData(rows[0])), now]);
    return { status: 200, answer: present(rows[0]) };
  });
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
  const chunks = [];
  req.on('data', (c) => chunks.push(c));
  req.on('end', () => {
    let body;
    try {
      body = JSON.parse(Buffer.concat(chunks).toString('utf8'));
    } catch {
      send(400, { error: 'invalid JSON' });
      return;
    }
    const work = req.method === 'PATCH' ? update : create;
    work(body).then(
      ({ status, answer }) => send(status, answer),
      (error) => send(500, { error: String(error?.message ?? error) }),
    );
  });
});
server.listen(Number(process.env.PORT), '127.0.0.1');
process.on('SIGTERM', () => server.close(() => pool.end().then(() => process.exit(0))));
