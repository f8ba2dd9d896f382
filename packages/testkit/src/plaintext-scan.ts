import type { Database } from '@mailcast/adapters';

/**
 * Every place in the database (all schemas but the system ones) that holds `needle` as it is:
 * text, varchar, json, jsonb and array columns compared as text, bytea columns byte for byte.
 * A Buffer needle is raw bytes: it is looked for in bytea columns only, since its bytes need not
 * be valid text (a NUL byte cannot even be sent as a text parameter); look for its text encodings
 * (base64, hex) with string needles. Answers `schema.table.column` for each hit.
 */
export async function findPlaintext(db: Database, needle: string | Buffer): Promise<string[]> {
  const { rows: columns } = await db.raw<{ rows: Array<{ table_schema: string; table_name: string; column_name: string; data_type: string }> }>(
    `SELECT c.table_schema, c.table_name, c.column_name, c.data_type
       FROM information_schema.columns c
       JOIN information_schema.tables t ON t.table_schema = c.table_schema AND t.table_name = c.table_name
      WHERE t.table_type = 'BASE TABLE'
        AND c.table_schema NOT IN ('pg_catalog', 'information_schema')
        AND c.data_type IN ('text', 'character varying', 'character', 'json', 'jsonb', 'ARRAY', 'bytea')`,
  );
  const hits: string[] = [];
  for (const c of columns) {
    if (Buffer.isBuffer(needle) && c.data_type !== 'bytea') continue;
    const column = `"${c.table_schema}"."${c.table_name}"."${c.column_name}"`;
    const from = `"${c.table_schema}"."${c.table_name}"`;
    const [sql, binding] =
      c.data_type === 'bytea'
        ? [`SELECT 1 FROM ${from} WHERE position(?::bytea IN "${c.column_name}") > 0 LIMIT 1`, Buffer.from(needle)]
        : [`SELECT 1 FROM ${from} WHERE strpos("${c.column_name}"::text, ?) > 0 LIMIT 1`, needle.toString()];
    const { rows } = await db.raw<{ rows: unknown[] }>(sql, [binding]);
    if (rows.length > 0) hits.push(column.replace(/"/g, ''));
  }
  return hits;
}
