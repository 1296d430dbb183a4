// A checkpoint that descends from an unreadable one replays its records, so checking and repairing a session
// both follow the parent links down from the damaged steps.

/** A checkpoint row's place in its thread's tree. */
export interface StepLink {
  seq: number;
  parent_seq: number | null;
}

/** The steps for which `isRoot` holds and every step descending from one (a descendant replays its records). */
export function withDescendants(steps: readonly StepLink[], isRoot: (seq: number) => boolean): Set<number> {
  const children = new Map<number, number[]>();
  for (const step of steps) {
    if (step.parent_seq !== null)
      children.set(step.parent_seq, [...(children.get(step.parent_seq) ?? []), step.seq]);
  }
  const found = new Set<number>();
  const queue = steps.filter((s) => isRoot(s.seq)).map((s) => s.seq);
  while (queue.length > 0) {
    const seq = queue.pop()!;
    if (found.has(seq)) continue;
    found.add(seq);
    queue.push(...(children.get(seq) ?? []));
  }
  return found;
}
