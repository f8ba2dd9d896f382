import fc from 'fast-check';
import { DomainError } from './errors';
import { defaultParent, deleteStep, insertStep, moveStep, SequenceTree, treeChanges, type StepNode } from './sequence-tree';

/**
 * Trees written as nested lists: `[id, action, children]`; a condition's children are its true
 * and false branches, written `['T', id, children]` / `['F', id, children]`.
 */
type Spec = Array<number | string | Spec[]>;

function build(spec: Spec, parentId: number | null = null, out: StepNode[] = []): StepNode[] {
  if (spec[0] === 'T' || spec[0] === 'F') {
    const [side, id, children = []] = spec as ['T' | 'F', number, Spec[]?];
    out.push({ id, parentId, action: 'condition_branch', branch: side === 'T' });
    for (const c of children) build(c, id, out);
  } else {
    const [id, action, children = []] = spec as [number, string, Spec[]?];
    out.push({ id, parentId, action, branch: null });
    for (const c of children) build(c, id, out);
  }
  return out;
}

/** The tree back as a nested string, to compare shapes at a glance. */
function shape(tree: SequenceTree, id = tree.entry.id): string {
  const n = tree.node(id);
  const name = n.action === 'condition_branch' ? `${n.branch ? 'T' : 'F'}${n.id}` : `${n.id}`;
  const kids = tree
    .nodes()
    .filter((c) => c.parentId === id)
    .sort((a, b) => Number(b.branch === true) - Number(a.branch === true) || a.id - b.id);
  return kids.length === 0 ? name : `${name}(${kids.map((k) => shape(tree, k.id)).join(' ')})`;
}

const tree = (spec: Spec) => new SequenceTree(build(spec));

// 1 entry → 2 email → 3 condition [T4 → 5 delay, F6 → 7 email] ; used by most cases
const sample = () =>
  tree([
    1,
    'entry_point',
    [
      [
        2,
        'send_email',
        [
          [
            3,
            'condition',
            [
              ['T', 4, [[5, 'delay']]],
              ['F', 6, [[7, 'send_email']]],
            ],
          ],
        ],
      ],
    ],
  ]);

describe('sequence tree', () => {
  test('positions are depth-first, true branch before false', () => {
    expect([...sample().positions()]).toEqual([
      [1, 0],
      [2, 1],
      [3, 2],
      [4, 3],
      [5, 4],
      [6, 5],
      [7, 6],
    ]);
  });

  test.each<[string, Spec, number]>([
    ['an empty sequence: the entry point', [1, 'entry_point'], 1],
    ['a line: its last step', [1, 'entry_point', [[2, 'delay', [[3, 'send_email']]]]], 3],
    [
      'through a condition: the end of its true branch',
      [
        1,
        'entry_point',
        [
          [
            3,
            'condition',
            [
              ['T', 4, [[5, 'delay']]],
              ['F', 6, [[7, 'send_email']]],
            ],
          ],
        ],
      ],
      5,
    ],
    [
      'an empty true branch: the branch',
      [
        1,
        'entry_point',
        [
          [
            3,
            'condition',
            [
              ['T', 4],
              ['F', 6, [[7, 'delay']]],
            ],
          ],
        ],
      ],
      4,
    ],
  ])('the default parent of %s', (_, spec, expected) => {
    expect(defaultParent(tree(spec))).toBe(expected);
  });

  test.each<[string, number, StepNode[], string]>([
    ['at the end', 5, [{ id: 9, parentId: 5, action: 'delay', branch: null }], '1(2(3(T4(5(9)) F6(7))))'],
    ['in the middle: the former child moves under the new step', 1, [{ id: 9, parentId: 1, action: 'delay', branch: null }], '1(9(2(3(T4(5) F6(7)))))'],
    ['under a branch', 6, [{ id: 9, parentId: 6, action: 'delay', branch: null }], '1(2(3(T4(5) F6(9(7)))))'],
    [
      'a condition: the former child goes under its true branch',
      1,
      [
        { id: 9, parentId: 1, action: 'condition', branch: null },
        { id: 10, parentId: 9, action: 'condition_branch', branch: true },
        { id: 11, parentId: 9, action: 'condition_branch', branch: false },
      ],
      '1(9(T10(2(3(T4(5) F6(7)))) F11))',
    ],
  ])('insert %s', (_, parent, added, expected) => {
    expect(shape(insertStep(sample(), parent, added))).toBe(expected);
  });

  test('insert under a condition itself is refused: its children are its branches', () => {
    expect(() => insertStep(sample(), 3, [{ id: 9, parentId: 3, action: 'delay', branch: null }])).toThrow(/parent_id 3 is a condition/);
  });

  test('move: a plain step moves alone; its child re-attaches to its old parent', () => {
    const t = tree([
      1,
      'entry_point',
      [
        [
          2,
          'send_email',
          [
            [
              3,
              'condition',
              [
                ['T', 4, [[5, 'delay', [[8, 'delay']]]]],
                ['F', 6, [[7, 'send_email']]],
              ],
            ],
          ],
        ],
      ],
    ]);
    expect(shape(moveStep(t, 5, 6))).toBe('1(2(3(T4(8) F6(5(7)))))');
  });

  test.each<[string, number, number, string]>([
    ['the target former child goes under the moved step', 5, 6, '1(2(3(T4 F6(5(7)))))'],
    ['a condition moves with both branches', 3, 1, '1(3(T4(5(2)) F6(7)))'],
  ])('move: %s', (_, step, under, expected) => {
    expect(shape(moveStep(sample(), step, under))).toBe(expected);
  });

  test('a condition moved above a step puts that step at the end of its true branch line', () => {
    const line = tree([
      1,
      'entry_point',
      [
        [
          8,
          'delay',
          [
            [
              3,
              'condition',
              [
                ['T', 4, [[5, 'delay']]],
                ['F', 6],
              ],
            ],
          ],
        ],
      ],
    ]);
    expect(shape(moveStep(line, 3, 1))).toBe('1(3(T4(5(8)) F6))');
  });

  test.each<[string, number, number, RegExp]>([
    ['the entry point', 1, 2, /entry point cannot be moved/],
    ['a branch', 4, 2, /branch cannot be moved/],
    ['under itself', 2, 2, /cannot be the step itself/],
    ['under its own subtree', 3, 5, /under the moved step/],
    ['under a step of another sequence', 2, 99, /under_id 99 is not a step of this sequence/],
    ['without a change', 5, 4, /already the step's parent/],
    ['under a condition', 7, 3, /under_id 3 is a condition/],
  ])('move refuses %s', (_, step, under, message) => {
    const attempt = () => moveStep(sample(), step, under);
    expect(attempt).toThrow(DomainError);
    expect(attempt).toThrow(message);
  });

  test.each<[string, number, string, number[], number | null]>([
    ['a plain step: its child re-attaches to its parent', 2, '1(3(T4(5) F6(7)))', [2], 3],
    ['the last step: nothing replaces it', 5, '1(2(3(T4 F6(7))))', [5], null],
    ['a condition: keeps the true line, drops the false', 3, '1(2(5))', [3, 4, 6, 7], 5],
  ])('delete %s', (_, step, expected, removed, replacement) => {
    const result = deleteStep(sample(), step);
    expect(shape(result.tree)).toBe(expected);
    expect(result.removed.sort()).toEqual(removed);
    expect(result.replacement).toBe(replacement);
  });

  test.each([[1], [4], [6]])('delete refuses the entry point and branches (%i)', (step) => {
    expect(() => deleteStep(sample(), step)).toThrow(DomainError);
  });

  test('changes name only the steps whose parent or position moved', () => {
    const before = sample();
    const after = moveStep(before, 5, 6);
    expect(treeChanges(before, after)).toEqual([
      { id: 6, parentId: 3, position: 4 },
      { id: 5, parentId: 6, position: 5 },
      { id: 7, parentId: 5, position: 6 },
    ]);
  });

  // Any sequence of edits keeps a tree: every step reachable from the entry point once, each
  // plain step with one child at most, each condition with exactly its two branches.
  test('every edit keeps the tree well formed', () => {
    const op = fc.tuple(fc.constantFrom('insert', 'condition', 'move', 'delete'), fc.nat(), fc.nat());
    fc.assert(
      fc.property(fc.array(op, { maxLength: 30 }), (ops) => {
        let t = new SequenceTree([{ id: 1, parentId: null, action: 'entry_point', branch: null }]);
        let next = 2;
        for (const [kind, a, b] of ops) {
          const ids = t.ordered().map((n) => n.id);
          const pick = (k: number) => ids[k % ids.length]!;
          try {
            if (kind === 'insert') t = insertStep(t, pick(a), [{ id: next++, parentId: pick(a), action: 'delay', branch: null }]);
            if (kind === 'condition') {
              const id = next;
              next += 3;
              t = insertStep(t, pick(a), [
                { id, parentId: pick(a), action: 'condition', branch: null },
                { id: id + 1, parentId: id, action: 'condition_branch', branch: true },
                { id: id + 2, parentId: id, action: 'condition_branch', branch: false },
              ]);
            }
            if (kind === 'move') t = moveStep(t, pick(a), pick(b));
            if (kind === 'delete') t = deleteStep(t, pick(a)).tree;
          } catch (e) {
            if (!(e instanceof DomainError)) throw e;
          }
          const all = t.nodes();
          expect(t.ordered()).toHaveLength(all.length);
          for (const n of all) {
            const kids = all.filter((c) => c.parentId === n.id);
            if (n.action === 'condition') expect(kids.map((k) => k.branch).sort()).toEqual([false, true]);
            else expect(kids.length).toBeLessThanOrEqual(1);
          }
        }
      }),
    );
  });
});
