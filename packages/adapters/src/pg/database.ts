import knexFactory, { type Knex } from 'knex';
import pg from 'pg';

// bigint (int8) columns are the spec's integer ids and counts; they stay far below 2^53,
// so they are read as numbers instead of pg's default strings.
pg.types.setTypeParser(pg.types.builtins.INT8, (value) => Number(value));

export type Database = Knex;

interface KnexLog {
  warn(message: string): void;
  error(message: string): void;
}

/**
 * A knex pool. knex's own messages go to the process logger when given. Short-lived commands
 * (migrate, admin) give none: knex's messages repeat the failure their promise already carries,
 * and the command reports that once.
 */
export function createDatabase(connectionString: string, options: { poolMax?: number; log?: KnexLog; statementTimeoutMs?: number } = {}): Database {
  const log = options.log;
  return knexFactory({
    client: 'pg',
    // A statement time-out is a session setting of every connection of the pool, sent with the
    // connection's start-up: it costs no statement (docs/security.md, "Statement time-outs").
    connection: { connectionString, application_name: 'mailcast', ...(options.statementTimeoutMs ? { statement_timeout: options.statementTimeoutMs } : {}) },
    pool: { min: 0, max: options.poolMax ?? 10 },
    log: {
      warn: (message: string) => log?.warn(`knex: ${message}`),
      error: (message: string) => log?.error(`knex: ${message}`),
      deprecate: (method: string, alternative: string) => log?.warn(`knex: ${method} is deprecated, use ${alternative}`),
      debug: () => undefined,
    },
  });
}

/**
 * pg-boss speaks `executeSql(text, values)` with $n placeholders. Inside a knex transaction the
 * job insert must run on that transaction's own connection, so it commits or rolls back with
 * the change (docs/operations.md, "How a change happens"); knex hands a transaction's client its connection.
 */
export function transactionExecutor(trx: Knex.Transaction): {
  executeSql(text: string, values: unknown[]): Promise<{ rows: unknown[] }>;
} {
  const client = trx.client as { acquireConnection(): Promise<pg.ClientBase> };
  return {
    async executeSql(text, values) {
      const connection = await client.acquireConnection();
      const result = await connection.query(text, values);
      return { rows: result.rows };
    },
  };
}

/**
 * Names a statement, so each connection has PostgreSQL parse and plan it once and reuse the plan
 * (a prepared statement; node-postgres sends the text only the first time). For the hot
 * statements of the sending pipeline, planning costs more than running. Only for statements whose text never varies (arrays,
 * not IN lists); a name must stay with one text, or node-postgres refuses the query.
 */
export function prepared<Q extends { options(options: Readonly<Record<string, unknown>>): Q }>(name: string, query: Q): Q {
  return query.options({ name: `mailcast.${name}` });
}
