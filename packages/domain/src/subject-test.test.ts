import { pickWinner, samplePlan, subjectFor } from './subject-test';

describe('subject tests (docs/subject-tests.md)', () => {
  it('draws equal parts: sample_percent of the recipients, rounded down per subject, at least one each', () => {
    expect(samplePlan(1000, 10, 2)).toEqual({ perVariant: 50, sampleSize: 100 });
    expect(samplePlan(1000, 10, 3)).toEqual({ perVariant: 33, sampleSize: 99 });
    expect(samplePlan(40, 50, 2)).toEqual({ perVariant: 10, sampleSize: 20 });
    expect(samplePlan(10, 5, 4)).toEqual({ perVariant: 1, sampleSize: 4 });
    expect(samplePlan(3, 50, 4)).toEqual({ perVariant: 0, sampleSize: 0 });
    expect(samplePlan(0, 50, 2)).toEqual({ perVariant: 0, sampleSize: 0 });
  });

  it('picks the highest rate on the metric; ties, and nothing at all, go to the first subject', () => {
    const v = (sent: number, human_opens: number, human_clicks = 0) => ({ sent, human_opens, human_clicks });
    expect(pickWinner([v(10, 2), v(10, 3)], 'human_opens')).toBe(1);
    expect(pickWinner([v(10, 3), v(10, 3)], 'human_opens')).toBe(0);
    expect(pickWinner([v(10, 0), v(10, 0), v(10, 0)], 'human_opens')).toBe(0);
    expect(pickWinner([v(10, 9, 1), v(10, 1, 2)], 'human_clicks')).toBe(1);
    // A rate over sent: 3 of 6 beats 4 of 10.
    expect(pickWinner([v(10, 4), v(6, 3)], 'human_opens')).toBe(1);
    // A part sent nothing never wins over one that engaged.
    expect(pickWinner([v(0, 0), v(5, 1)], 'human_opens')).toBe(1);
    expect(pickWinner([v(5, 1), v(0, 0)], 'human_opens')).toBe(0);
    expect(pickWinner([v(5, 0), v(5, 0), v(5, 0), v(5, 1)], 'human_opens')).toBe(3);
  });

  it('gives each recipient their subject', () => {
    const test = { subjects: ['A', 'B'], sample_percent: 10, metric: 'human_opens' as const, wait_minutes: 60 };
    expect(subjectFor(test, 1, 'S')).toBe('B');
    expect(subjectFor(test, null, 'S')).toBe('S');
    expect(subjectFor(null, 1, 'S')).toBe('S');
  });
});
