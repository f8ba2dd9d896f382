import { chooseVariant } from './form-variant';

const forms = [
  { id: 1, weight: 50 },
  { id: 2, weight: 30 },
  { id: 3, weight: 20 },
];

describe('chooseVariant (docs/opt-in-forms.md, "Variant assignment")', () => {
  it('keeps one visitor on one form, whatever the order of calls', () => {
    for (let i = 0; i < 200; i++) {
      const visitor = `visitor-${i}`;
      const first = chooseVariant(1, visitor, forms).id;
      expect(chooseVariant(1, visitor, forms).id).toBe(first);
      expect(chooseVariant(1, visitor, [...forms]).id).toBe(first);
    }
  });

  it('splits visitors by weight (10,000 visitors within 2 points of each share)', () => {
    const counts = new Map<number, number>();
    for (let i = 0; i < 10_000; i++) {
      const id = chooseVariant(1, `v${i}`, forms).id;
      counts.set(id, (counts.get(id) ?? 0) + 1);
    }
    expect(Math.abs(counts.get(1)! - 5000)).toBeLessThan(200);
    expect(Math.abs(counts.get(2)! - 3000)).toBeLessThan(200);
    expect(Math.abs(counts.get(3)! - 2000)).toBeLessThan(200);
  });

  it('never chooses a form of weight 0, and falls back to the main form when all are 0', () => {
    const zero = [
      { id: 1, weight: 0 },
      { id: 2, weight: 100 },
    ];
    for (let i = 0; i < 500; i++) expect(chooseVariant(1, `v${i}`, zero).id).toBe(2);
    const none = [
      { id: 1, weight: 0 },
      { id: 2, weight: 0 },
    ];
    expect(chooseVariant(1, 'anyone', none).id).toBe(1);
  });

  it('hashes against the main form, so one visitor is not in the same stretch of every form', () => {
    const split = [
      { id: 1, weight: 50 },
      { id: 2, weight: 50 },
    ];
    const differ = Array.from({ length: 200 }, (_, i) => `v${i}`).filter(
      (v) => (chooseVariant(1, v, split) === split[0]) !== (chooseVariant(7, v, split) === split[0]),
    );
    expect(differ.length).toBeGreaterThan(50);
  });

  it('refuses an empty list', () => {
    expect(() => chooseVariant(1, 'v', [])).toThrow('at least one form');
  });
});
