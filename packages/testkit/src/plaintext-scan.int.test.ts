import { createTestDatabase, findPlaintext, type TestDatabase } from '@mailcast/testkit';

/** The scan the secrets-at-rest tests rely on finds what is there, in every form, and nothing else. */
describe('findPlaintext', () => {
  let database: TestDatabase;
  beforeAll(async () => {
    database = await createTestDatabase({ empty: true });
    await database.db.raw('CREATE TABLE scanned (note text, blob bytea)');
    await database.db('scanned').insert({ note: 'the secret is hunter2', blob: Buffer.from([7, 0, 255, 1]) });
  });
  afterAll(() => database.drop());

  it('finds a string in text columns and its bytes in bytea columns', async () => {
    expect(await findPlaintext(database.db, 'hunter2')).toEqual(['public.scanned.note']);
    expect(await findPlaintext(database.db, Buffer.from([0, 255]))).toEqual(['public.scanned.blob']);
  });

  it('looks for raw bytes holding a NUL in bytea columns only, and finds nothing that is not there', async () => {
    expect(await findPlaintext(database.db, Buffer.from([0, 0, 9]))).toEqual([]);
    expect(await findPlaintext(database.db, 'absent')).toEqual([]);
  });
});
