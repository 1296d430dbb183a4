import type { Skill } from '@birdie/skill-parser';
import { collectPatterns, isSpaceCode, isWordCode, type Pattern } from './trigger-patterns.js';
import type { TriggerOptions } from './types.js';

const NONE = -1;

/**
 * All triggers of all skills compiled into one Aho–Corasick automaton, so a message is scanned once whatever the
 * number of skills. Nodes are numbered breadth-first and each node's edges sit side by side (CSR layout): the
 * shallow nodes, where a scan spends most of its time, share a few cache lines.
 */
export class TriggerMatcher {
  readonly patternCount: number;
  readonly nodeCount: number;
  private readonly patterns: Pattern[];
  private readonly skillCount: number;
  /** Edges of node n: `edgeChar/edgeTarget[edgeStart[n] .. edgeStart[n + 1])`. */
  private readonly edgeStart: Int32Array;
  private readonly edgeChar: Uint16Array;
  private readonly edgeTarget: Int32Array;
  /** Dense transitions out of the root (0 = stay at the root). */
  private readonly rootNext: Int32Array;
  private readonly fail: Int32Array;
  /** Pattern id ending at this node, or -1. */
  private readonly output: Int32Array;
  /** Nearest proper suffix node that ends a pattern, or -1. */
  private readonly dictLink: Int32Array;

  constructor(skills: readonly Skill[], options: TriggerOptions = {}) {
    this.skillCount = skills.length;
    this.patterns = collectPatterns(skills, options);
    this.patternCount = this.patterns.length;

    // 1. A trie, its edges found through a temporary open-addressing hash table keyed by (node, char).
    let capacity = 1;
    for (const pattern of this.patterns) capacity += pattern.text.length;
    const firstChild = new Int32Array(capacity).fill(NONE);
    const nextSibling = new Int32Array(capacity).fill(NONE);
    const charOf = new Uint16Array(capacity);
    const outputOf = new Int32Array(capacity).fill(NONE);
    let bits = 4;
    while (1 << bits < capacity * 2) bits++;
    const shift = 32 - bits;
    const mask = (1 << bits) - 1;
    // Slot s holds [node, char, child] at 3s: one cache line per probe.
    const slots = new Int32Array(3 << bits).fill(NONE);
    let nodes = 1;
    for (let id = 0; id < this.patterns.length; id++) {
      const text = this.patterns[id]!.text;
      let node = 0;
      for (let i = 0; i < text.length; i++) {
        const code = text.charCodeAt(i);
        let slot = (Math.imul(node, 0x9e3779b1) ^ Math.imul(code + 1, 0x85ebca6b)) >>> shift;
        let child = NONE;
        for (;;) {
          const owner = slots[slot * 3]!;
          if (owner === NONE) break;
          if (owner === node && slots[slot * 3 + 1] === code) {
            child = slots[slot * 3 + 2]!;
            break;
          }
          slot = (slot + 1) & mask;
        }
        if (child === NONE) {
          child = nodes++;
          charOf[child] = code;
          nextSibling[child] = firstChild[node]!;
          firstChild[node] = child;
          slots[slot * 3] = node;
          slots[slot * 3 + 1] = code;
          slots[slot * 3 + 2] = child;
        }
        node = child;
      }
      outputOf[node] = id;
    }
    this.nodeCount = nodes;

    // 2. One breadth-first pass: renumber, lay each node's edges out, and link failures. A node's failure target
    // is shallower, so it was numbered, and its edges laid out, before the node's parent.
    const edgeStart = new Int32Array(nodes + 1);
    const edgeChar = new Uint16Array(Math.max(nodes - 1, 0));
    const edgeTarget = new Int32Array(Math.max(nodes - 1, 0));
    const output = new Int32Array(nodes).fill(NONE);
    const rootNext = new Int32Array(0x10000);
    const fail = new Int32Array(nodes);
    const dictLink = new Int32Array(nodes).fill(NONE);
    const queue = new Int32Array(nodes);
    let tail = 1;
    let edges = 0;
    for (let id = 0; id < nodes; id++) {
      const old = queue[id]!;
      output[id] = outputOf[old]!;
      edgeStart[id] = edges;
      for (let child = firstChild[old]!; child !== NONE; child = nextSibling[child]!) {
        const next = tail++;
        const code = charOf[child]!;
        queue[next] = child;
        edgeChar[edges] = code;
        edgeTarget[edges++] = next;
        if (id === 0) {
          rootNext[code] = next;
          continue;
        }
        let target = 0;
        for (let from = fail[id]!; from > 0 && target === 0; from = fail[from]!) {
          for (let e = edgeStart[from]!, end = edgeStart[from + 1]!; e < end; e++) {
            if (edgeChar[e] === code) {
              target = edgeTarget[e]!;
              break;
            }
          }
        }
        // Reached the root without a match: the root's own edge, if any.
        if (target === 0) target = rootNext[code]!;
        fail[next] = target;
      }
    }
    edgeStart[nodes] = edges;
    // Dictionary links need the output of each failure target, known only now; breadth-first again.
    for (let id = 1; id < nodes; id++) {
      const target = fail[id]!;
      dictLink[id] = output[target] !== NONE ? target : dictLink[target]!;
    }
    this.edgeStart = edgeStart;
    this.edgeChar = edgeChar;
    this.edgeTarget = edgeTarget;
    this.output = output;
    this.rootNext = rootNext;
    this.fail = fail;
    this.dictLink = dictLink;
  }

  /**
   * Indexes (into the skills given to the constructor) of allowed skills with a trigger in `message`, ascending.
   * The message is compared lower-cased with whitespace runs read as one space, like the triggers.
   */
  match(message: string, allowed: Uint8Array): number[] {
    const found: number[] = [];
    if (this.patternCount === 0) return found;
    const lower = message.toLowerCase();
    const text = new Uint16Array(lower.length);
    let length = 0;
    for (let i = 0, space = false; i < lower.length; i++) {
      const code = lower.charCodeAt(i);
      if (isSpaceCode(code)) {
        if (!space) text[length++] = 32;
        space = true;
      } else {
        text[length++] = code;
        space = false;
      }
    }
    const seen = new Uint8Array(this.skillCount);
    const { rootNext, fail, output, dictLink, edgeStart, edgeChar, edgeTarget } = this;
    let state = 0;
    for (let i = 0; i < length; i++) {
      const code = text[i]!;
      for (;;) {
        if (state === 0) {
          state = rootNext[code]!;
          break;
        }
        let next = NONE;
        for (let e = edgeStart[state]!, end = edgeStart[state + 1]!; e < end; e++) {
          if (edgeChar[e] === code) {
            next = edgeTarget[e]!;
            break;
          }
        }
        if (next !== NONE) {
          state = next;
          break;
        }
        state = fail[state]!;
      }
      for (let node = output[state] !== NONE ? state : dictLink[state]!; node > 0; node = dictLink[node]!) {
        this.report(this.patterns[output[node]!]!, text, length, i, allowed, seen, found);
      }
    }
    return found.sort((a, b) => a - b);
  }

  private report(
    pattern: Pattern,
    text: Uint16Array,
    length: number,
    end: number,
    allowed: Uint8Array,
    seen: Uint8Array,
    found: number[],
  ): void {
    for (const owner of pattern.owners) {
      if (seen[owner.skill] || !allowed[owner.skill]) continue;
      if (owner.wholeWord) {
        const start = end - pattern.text.length + 1;
        if (pattern.wordAtStart && start > 0 && isWordCode(text[start - 1]!)) continue;
        if (pattern.wordAtEnd && end + 1 < length && isWordCode(text[end + 1]!)) continue;
      }
      seen[owner.skill] = 1;
      found.push(owner.skill);
    }
  }
}
