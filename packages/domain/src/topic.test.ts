import { CUSTOM_DATA_KEY_PATTERN, receivesTopic, topicValue, withTopicChoice, type TopicSource } from './topic';

const key: TopicSource = { storage: 'custom_data', customDataKey: 'news', tagName: null };
const tag: TopicSource = { storage: 'tag', customDataKey: null, tagName: 'weekly' };

// docs/topics.md, "Where a topic's value lives".
describe('topicValue', () => {
  test.each<[string, unknown, boolean | null]>([
    ['true', true, true],
    ['1', 1, true],
    ['1.0 (the same JSON number)', 1.0, true],
    ['"true"', 'true', true],
    ['"1"', '1', true],
    ['false', false, false],
    ['0', 0, false],
    ['"yes"', 'yes', false],
    ['"TRUE"', 'TRUE', false],
    ['" 1"', ' 1', false],
    ['2', 2, false],
    ['an object', { nested: true }, false],
    ['an array', [true], false],
    ['""', '', false],
    ['null', null, null],
  ])('custom_data key %s', (_name, value, expected) => {
    expect(topicValue(key, { tags: [], customData: { news: value } })).toBe(expected);
  });

  test('a missing key, another key, nested keys and non-object data are unset', () => {
    expect(topicValue(key, { tags: [], customData: {} })).toBeNull();
    expect(topicValue(key, { tags: [], customData: { other: true } })).toBeNull();
    expect(topicValue(key, { tags: [], customData: { a: { news: true } } })).toBeNull();
    expect(topicValue(key, { tags: [], customData: null })).toBeNull();
    expect(topicValue(key, { tags: [], customData: [true] })).toBeNull();
  });

  test('keys the object inherits are not its keys (jsonb knows no prototype)', () => {
    for (const k of ['constructor', 'toString', '__proto__', 'hasOwnProperty']) {
      expect(topicValue({ ...key, customDataKey: k }, { tags: [], customData: {} })).toBeNull();
    }
    expect(topicValue({ ...key, customDataKey: '__proto__' }, { tags: [], customData: JSON.parse('{"__proto__": 1}') })).toBe(true);
  });

  test('tag topics: tagged is yes, untagged unset; exact, case-sensitive', () => {
    expect(topicValue(tag, { tags: ['a', 'weekly'], customData: {} })).toBe(true);
    expect(topicValue(tag, { tags: ['Weekly'], customData: {} })).toBeNull();
    expect(topicValue(tag, { tags: [], customData: { weekly: false } })).toBeNull();
    expect(topicValue(tag, { tags: null, customData: {} })).toBeNull();
  });

  test('receivesTopic: unset falls back to unset_receives; a value decides alone', () => {
    expect(receivesTopic({ ...key, unsetReceives: true }, { tags: [], customData: {} })).toBe(true);
    expect(receivesTopic({ ...key, unsetReceives: false }, { tags: [], customData: {} })).toBe(false);
    expect(receivesTopic({ ...key, unsetReceives: true }, { tags: [], customData: { news: 0 } })).toBe(false);
    expect(receivesTopic({ ...key, unsetReceives: false }, { tags: [], customData: { news: '1' } })).toBe(true);
  });
});

describe('withTopicChoice (the preference page)', () => {
  const holder = { tags: ['a'], customData: { plan: 'pro', news: null } as Record<string, unknown> };

  test('custom_data topics store true or false under their key, the rest kept', () => {
    expect(withTopicChoice(key, holder, true)).toEqual({ tags: ['a'], customData: { plan: 'pro', news: true } });
    expect(withTopicChoice(key, holder, false)).toEqual({ tags: ['a'], customData: { plan: 'pro', news: false } });
    expect(holder.customData.news).toBeNull();
  });

  test('tag topics add their tag once, or take it away', () => {
    expect(withTopicChoice(tag, holder, true).tags).toEqual(['a', 'weekly']);
    expect(withTopicChoice(tag, { ...holder, tags: ['weekly', 'a'] }, true).tags).toEqual(['weekly', 'a']);
    expect(withTopicChoice(tag, { ...holder, tags: ['weekly', 'a'] }, false).tags).toEqual(['a']);
  });

  test('the value written reads back as the choice', () => {
    for (const topic of [key, tag]) {
      expect(receivesTopic({ ...topic, unsetReceives: false }, withTopicChoice(topic, holder, true))).toBe(true);
      expect(receivesTopic({ ...topic, unsetReceives: false }, withTopicChoice(topic, holder, false))).toBe(false);
    }
  });
});

test.each([
  ['news', true],
  ['_private', true],
  ['News_2', true],
  ['2news', false],
  ['news-letter', false],
  ['a.b', false],
  ['', false],
])('custom_data_key %j matches %s', (k, ok) => {
  expect(CUSTOM_DATA_KEY_PATTERN.test(k)).toBe(ok);
});
