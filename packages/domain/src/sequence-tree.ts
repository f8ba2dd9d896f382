import { DomainError } from './errors';

/**
 * A sequence's steps as a tree under its entry point (docs/sequences.md, "The step tree"). A
 * step has one child at most, except a condition, whose two children are its branches (true,
 * false); a branch has one child at most. Positions are the depth-first order, true branch first.
 */
export interface StepNode {
  id: number;
  parentId: number | null;
  action: string;
  /** A condition branch's side; null for every other step. */
  branch: boolean | null;
}

const refuse = (message: string) => new DomainError('sequence_step_tree', message);

export class SequenceTree {
  private readonly byId: ReadonlyMap<number, StepNode>;
  private readonly children: ReadonlyMap<number, StepNode[]>;

  constructor(nodes: readonly StepNode[]) {
    this.byId = new Map(nodes.map((n) => [n.id, { ...n }]));
    const children = new Map<number, StepNode[]>();
    for (const n of this.byId.values()) {
      if (n.parentId === null) continue;
      children.set(n.parentId, [...(children.get(n.parentId) ?? []), n]);
    }
    // A condition's true branch comes first; otherwise the older (smaller id) step does.
    for (const list of children.values()) list.sort((a, b) => Number(b.branch === true) - Number(a.branch === true) || a.id - b.id);
    this.children = children;
  }

  get entry(): StepNode {
    const entry = [...this.byId.values()].find((n) => n.action === 'entry_point');
    if (entry === undefined) throw new Error('a sequence tree without an entry point');
    return entry;
  }

  has(id: number): boolean {
    return this.byId.has(id);
  }

  node(id: number): StepNode {
    const found = this.byId.get(id);
    if (found === undefined) throw new Error(`step ${id} is not in the tree`);
    return found;
  }

  /** The one child of a step that is not a condition. */
  childOf(id: number): StepNode | undefined {
    return this.children.get(id)?.[0];
  }

  branchOf(conditionId: number, side: boolean): StepNode {
    const found = this.children.get(conditionId)?.find((n) => n.branch === side);
    if (found === undefined) throw new Error(`condition ${conditionId} has no ${side} branch`);
    return found;
  }

  /** The end of the line from `from`, following first children and true branches. */
  lastOfLine(from: number = this.entry.id): number {
    let at = this.node(from);
    for (;;) {
      const next = at.action === 'condition' ? this.branchOf(at.id, true) : this.childOf(at.id);
      if (next === undefined) return at.id;
      at = next;
    }
  }

  /** The step and everything under it. */
  subtree(id: number): Set<number> {
    const found = new Set<number>();
    const stack = [id];
    while (stack.length > 0) {
      const at = stack.pop()!;
      found.add(at);
      for (const c of this.children.get(at) ?? []) stack.push(c.id);
    }
    return found;
  }

  /** Every step in depth-first order (true branch before false). */
  ordered(): StepNode[] {
    const out: StepNode[] = [];
    const visit = (n: StepNode) => {
      out.push(n);
      for (const c of this.children.get(n.id) ?? []) visit(c);
    };
    visit(this.entry);
    return out;
  }

  positions(): Map<number, number> {
    return new Map(this.ordered().map((n, i) => [n.id, i]));
  }

  nodes(): StepNode[] {
    return [...this.byId.values()].map((n) => ({ ...n }));
  }

  /** A copy with some steps re-parented and some removed. */
  with(parents: ReadonlyMap<number, number>, removed: ReadonlySet<number> = new Set()): SequenceTree {
    return new SequenceTree(
      this.nodes()
        .filter((n) => !removed.has(n.id))
        .map((n) => (parents.has(n.id) ? { ...n, parentId: parents.get(n.id)! } : n)),
    );
  }
}

/** Where a step goes when created without `parent_id`: the end of the main line. */
export function defaultParent(tree: SequenceTree): number {
  return tree.lastOfLine();
}

/** A step may go under any step but a condition, whose children are its two branches. */
export function checkParent(tree: SequenceTree, parentId: number, field: 'parent_id' | 'under_id'): void {
  if (!tree.has(parentId)) throw refuse(`${field} ${parentId} is not a step of this sequence`);
  if (tree.node(parentId).action === 'condition') throw refuse(`${field} ${parentId} is a condition: choose one of its branches`);
}

/** Where a step's former child goes: under the step, or under a condition's true branch line. */
const landingOf = (tree: SequenceTree, step: StepNode) => (step.action === 'condition' ? tree.lastOfLine(tree.branchOf(step.id, true).id) : step.id);

/**
 * Inserts `added` (a step, or a condition with its two branches) under `parentId`: the parent's
 * former child moves under the new step, or under a new condition's true branch.
 */
export function insertStep(tree: SequenceTree, parentId: number, added: readonly StepNode[]): SequenceTree {
  checkParent(tree, parentId, 'parent_id');
  const step = added.find((n) => n.parentId === parentId);
  if (step === undefined) throw new Error('the inserted step must name the parent');
  const former = tree.childOf(parentId);
  const grown = new SequenceTree([...tree.nodes(), ...added]);
  return former === undefined ? grown : grown.with(new Map([[former.id, landingOf(grown, step)]]));
}

/**
 * Moves a step under `underId`. A plain step moves alone (its child re-attaches to its old
 * parent); a condition moves with both branches. The target's former child goes under the moved
 * step, or at the end of a condition's true branch line.
 */
export function moveStep(tree: SequenceTree, stepId: number, underId: number): SequenceTree {
  const step = tree.node(stepId);
  if (step.action === 'entry_point') throw refuse('The entry point cannot be moved');
  if (step.action === 'condition_branch') throw refuse('A condition branch cannot be moved');
  if (!tree.has(underId)) throw refuse(`under_id ${underId} is not a step of this sequence`);
  if (underId === stepId) throw refuse('under_id cannot be the step itself');
  if (tree.subtree(stepId).has(underId)) throw refuse('under_id cannot be a step under the moved step');
  checkParent(tree, underId, 'under_id');
  if (step.parentId === underId) throw refuse(`under_id ${underId} is already the step's parent`);

  const parents = new Map<number, number>();
  if (step.action !== 'condition') {
    const child = tree.childOf(stepId);
    if (child !== undefined) parents.set(child.id, step.parentId!);
  }
  const former = tree.childOf(underId);
  parents.set(stepId, underId);
  const moved = tree.with(parents);
  return former === undefined ? moved : moved.with(new Map([[former.id, landingOf(moved, moved.node(stepId))]]));
}

/**
 * Deletes a step. Its child re-attaches to its parent; a condition keeps its true branch's line
 * (re-attached to its parent) and drops the false one. `replacement` is where enrolments waiting
 * on any removed step continue: the step now in the deleted one's place, or null at the end of a path.
 */
export function deleteStep(tree: SequenceTree, stepId: number): { tree: SequenceTree; removed: number[]; replacement: number | null } {
  const step = tree.node(stepId);
  if (step.action === 'entry_point') throw refuse('The entry point cannot be deleted');
  if (step.action === 'condition_branch') throw refuse('A condition branch cannot be deleted');
  const removed = new Set([stepId]);
  let heir: StepNode | undefined;
  if (step.action === 'condition') {
    const yes = tree.branchOf(stepId, true);
    heir = tree.childOf(yes.id);
    removed.add(yes.id);
    for (const id of tree.subtree(tree.branchOf(stepId, false).id)) removed.add(id);
  } else {
    heir = tree.childOf(stepId);
  }
  const parents = new Map<number, number>(heir === undefined ? [] : [[heir.id, step.parentId!]]);
  return { tree: tree.with(parents, removed), removed: [...removed], replacement: heir?.id ?? null };
}

/** What to write to go from `before` to `after`: new parents and positions, by step. */
export function treeChanges(before: SequenceTree, after: SequenceTree): Array<{ id: number; parentId: number | null; position: number }> {
  const was = before.positions();
  return after.ordered().flatMap((n, position) => {
    const old = before.has(n.id) ? before.node(n.id) : undefined;
    return old === undefined || old.parentId !== n.parentId || was.get(n.id) !== position ? [{ id: n.id, parentId: n.parentId, position }] : [];
  });
}
