import { receivesTopic, topicValue, type TopicSource } from '@mailcast/domain';
import { createTestDatabase, type TestDatabase } from '@mailcast/testkit';

/**
 * The presenter's topicValue (domain) and the SQL topic_value / receives_topic of the migration
 * 20261201000001 must agree on every value a subscriber's data can hold (docs/topics.md): the
 * API shows the one, recipient building and the counts use the other.
 */
describe('topic_value in SQL and topicValue in TypeScript agree', () => {
  let database: TestDatabase;
  beforeAll(async () => {
    database = await createTestDatabase();
  });
  afterAll(() => database.drop());

  // The custom_data documents as JSON text, so both sides read exactly what PostgreSQL stores.
  const customData: Array<[string, string]> = [
    ['true', '{"k": true}'],
    ['1', '{"k": 1}'],
    ['1.0', '{"k": 1.0}'],
    ['"true"', '{"k": "true"}'],
    ['"1"', '{"k": "1"}'],
    ['false', '{"k": false}'],
    ['0', '{"k": 0}'],
    ['"0"', '{"k": "0"}'],
    ['"yes"', '{"k": "yes"}'],
    ['"TRUE"', '{"k": "TRUE"}'],
    ['""', '{"k": ""}'],
    ['2', '{"k": 2}'],
    ['-1', '{"k": -1}'],
    ['null', '{"k": null}'],
    ['missing', '{}'],
    ['another key', '{"other": true}'],
    ['nested object', '{"k": {"k": true}}'],
    ['nested key only', '{"a": {"k": true}}'],
    ['array', '{"k": [true]}'],
    ['empty object', '{"k": {}}'],
    ['a whole array as data', '[true]'],
    ['a string as data', '"k"'],
  ];
  const keys: Array<[string, string]> = [
    ['k', 'k'],
    ['constructor (inherited in JS, not a key)', 'constructor'],
    ['__proto__', '__proto__'],
  ];
  const tagCases: Array<[string, string[]]> = [
    ['tagged', ['t', 'k']],
    ['untagged', ['x']],
    ['no tags', []],
    ['another case', ['K']],
  ];

  async function sql(topic: TopicSource, tags: string[], data: string, unsetReceives: boolean): Promise<{ value: boolean | null; receives: boolean }> {
    const { rows } = await database.db.raw(
      'SELECT topic_value(?, ?, ?, ?::text[], ?::jsonb) AS value, receives_topic(?, ?, ?, ?, ?::text[], ?::jsonb) AS receives',
      [topic.storage, topic.customDataKey, topic.tagName, tags, data, topic.storage, topic.customDataKey, topic.tagName, unsetReceives, tags, data],
    );
    return rows[0];
  }

  it.each(customData.flatMap(([name, data]) => keys.map(([keyName, key]) => [`${name}, key ${keyName}`, key, data] as const)))(
    'custom_data %s',
    async (_name, key, data) => {
      const topic: TopicSource = { storage: 'custom_data', customDataKey: key, tagName: null };
      for (const unsetReceives of [false, true]) {
        const holder = { tags: [], customData: JSON.parse(data) as unknown };
        expect(await sql(topic, [], data, unsetReceives)).toEqual({
          value: topicValue(topic, holder),
          receives: receivesTopic({ ...topic, unsetReceives }, holder),
        });
      }
    },
  );

  it.each(tagCases)('tag topic, %s', async (_name, tags) => {
    const topic: TopicSource = { storage: 'tag', customDataKey: null, tagName: 'k' };
    const holder = { tags, customData: { k: true } };
    expect(await sql(topic, tags, '{"k": true}', false)).toEqual({
      value: topicValue(topic, holder),
      receives: receivesTopic({ ...topic, unsetReceives: false }, holder),
    });
  });

  it('the table holds every kind of answer (the agreement is not vacuous)', async () => {
    const topic: TopicSource = { storage: 'custom_data', customDataKey: 'k', tagName: null };
    const answers = new Set(await Promise.all(customData.map(async ([, data]) => (await sql(topic, [], data, false)).value)));
    expect(answers).toEqual(new Set([true, false, null]));
  });
});
