import type { Skill } from '@birdie/skill-parser';
import type { TriggerOptions } from './types.js';

interface PatternOwner {
  skill: number;
  wholeWord: boolean;
}

interface Pattern {
  length: number;
  /** The pattern begins / ends with a word character, so a whole-word match must not touch one on that side. */
  wordAtStart: boolean;
  wordAtEnd: boolean;
  owners: PatternOwner[];
}

const NO_NODE = -1;

/** Lower case and single spaces: the form both triggers and messages are compared in. */
export function normalizeText(text: string): string {
  return text.toLowerCase().replace(/\s+/g, ' ');
}

/** Whether a skill's triggers are considered at all: it has prose to inject that is not injected anyway. */
export function isTriggerable(skill: Skill): boolean {
  return !skill.alwaysInject && skill.body !== null && skill.body.trim() !== '' && skill.triggers.length > 0;
}

/**
 * All triggers of all skills compiled into one Aho–Corasick automaton, so a message is scanned once whatever the
 * number of skills. Built once per snapshot; matching allocates only the result.
 */
export class TriggerMatcher {
  readonly patternCount: number;
  /** Child lists, only walked while building. */
  private readonly firstChild: Int32Array;
  private readonly nextSibling: Int32Array;
  private readonly charOf: Uint16Array;
  /** Transitions out of non-root nodes: an open-addressing hash table keyed by (node, char). */
  private readonly slotNode: Int32Array;
  private readonly slotChar: Uint16Array;
  private readonly slotChild: Int32Array;
  private readonly slotMask: number;
  private readonly slotShift: number;
  private readonly fail: Int32Array;
  /** Pattern id ending at this node, or -1. */
  private readonly output: Int32Array;
  /** Nearest proper suffix node (through fail links) that ends a pattern, or -1. */
  private readonly dictLink: Int32Array;
  /** Dense transitions out of the root, where most of the scanning happens. */
  private readonly rootNext: Int32Array;
  private readonly patterns: Pattern[];
  private readonly skillCount: number;

  constructor(skills: readonly Skill[], options: TriggerOptions = {}) {
    const wholeWordMode = options.wholeWord ?? 'short';
    const shortLength = options.shortLength ?? 3;
    const byText = new Map<string, Pattern>();
    skills.forEach((skill, index) => {
      if (!isTriggerable(skill)) return;
      for (const raw of skill.triggers) {
        const text = normalizeText(raw).trim();
        if (text === '') continue;
        const wholeWord =
          wholeWordMode === 'always' || (wholeWordMode === 'short' && isShort(text, shortLength));
        let pattern = byText.get(text);
        if (!pattern) {
          pattern = {
            length: text.length,
            wordAtStart: isWordCode(text.charCodeAt(0)),
            wordAtEnd: isWordCode(text.charCodeAt(text.length - 1)),
            owners: [],
          };
          byText.set(text, pattern);
        }
        const owner = pattern.owners.find((entry) => entry.skill === index);
        // The same skill listing a phrase twice: the lenient (substring) reading wins.
        if (owner) owner.wholeWord &&= wholeWord;
        else pattern.owners.push({ skill: index, wholeWord });
      }
    });
    this.skillCount = skills.length;
    this.patterns = [...byText.values()];
    this.patternCount = this.patterns.length;

    let capacity = 1;
    for (const text of byText.keys()) capacity += text.length;
    this.firstChild = new Int32Array(capacity).fill(NO_NODE);
    this.nextSibling = new Int32Array(capacity).fill(NO_NODE);
    this.charOf = new Uint16Array(capacity);
    this.fail = new Int32Array(capacity);
    this.output = new Int32Array(capacity).fill(NO_NODE);
    this.dictLink = new Int32Array(capacity).fill(NO_NODE);
    this.rootNext = new Int32Array(0x10000);
    let bits = 4;
    while (1 << bits < capacity * 2) bits++;
    const slots = 1 << bits;
    this.slotShift = 32 - bits;
    this.slotNode = new Int32Array(slots).fill(NO_NODE);
    this.slotChar = new Uint16Array(slots);
    this.slotChild = new Int32Array(slots);
    this.slotMask = slots - 1;
    let nodes = 1;
    let patternId = 0;
    for (const text of byText.keys()) {
      let node = 0;
      for (let i = 0; i < text.length; i++) {
        const code = text.charCodeAt(i);
        let child = node === 0 ? this.rootNext[code]! || NO_NODE : this.child(node, code);
        if (child === NO_NODE) {
          child = nodes++;
          this.charOf[child] = code;
          this.nextSibling[child] = this.firstChild[node]!;
          this.firstChild[node] = child;
          if (node === 0) this.rootNext[code] = child;
          else this.addChild(node, code, child);
        }
        node = child;
      }
      this.output[node] = patternId++;
    }
    this.linkFailures();
  }

  /** Indexes (into the skills given to the constructor) of allowed skills with a trigger in `message`, ascending. */
  match(message: string, allowed: Uint8Array): number[] {
    const found: number[] = [];
    if (this.patternCount === 0) return found;
    const text = normalizeText(message);
    const seen = new Uint8Array(this.skillCount);
    let state = 0;
    for (let i = 0; i < text.length; i++) {
      const code = text.charCodeAt(i);
      for (;;) {
        if (state === 0) {
          state = this.rootNext[code]!;
          break;
        }
        const child = this.child(state, code);
        if (child !== NO_NODE) {
          state = child;
          break;
        }
        state = this.fail[state]!;
      }
      for (let node = this.output[state] !== NO_NODE ? state : this.dictLink[state]!; node > 0; ) {
        const pattern = this.patterns[this.output[node]!]!;
        for (const owner of pattern.owners) {
          if (seen[owner.skill] || !allowed[owner.skill]) continue;
          if (owner.wholeWord && !this.isWholeWord(text, i, pattern)) continue;
          seen[owner.skill] = 1;
          found.push(owner.skill);
        }
        node = this.dictLink[node]!;
      }
    }
    return found.sort((a, b) => a - b);
  }

  private isWholeWord(text: string, end: number, pattern: Pattern): boolean {
    const start = end - pattern.length + 1;
    if (pattern.wordAtStart && start > 0 && isWordCode(text.charCodeAt(start - 1))) return false;
    if (pattern.wordAtEnd && end + 1 < text.length && isWordCode(text.charCodeAt(end + 1))) return false;
    return true;
  }

  private child(node: number, code: number): number {
    for (let slot = slotOf(node, code, this.slotShift); ; slot = (slot + 1) & this.slotMask) {
      const owner = this.slotNode[slot]!;
      if (owner === NO_NODE) return NO_NODE;
      if (owner === node && this.slotChar[slot] === code) return this.slotChild[slot]!;
    }
  }

  private addChild(node: number, code: number, child: number): void {
    let slot = slotOf(node, code, this.slotShift);
    while (this.slotNode[slot] !== NO_NODE) slot = (slot + 1) & this.slotMask;
    this.slotNode[slot] = node;
    this.slotChar[slot] = code;
    this.slotChild[slot] = child;
  }

  /** Breadth-first, so a node's failure target (always shallower) is final before the node is reached. */
  private linkFailures(): void {
    const queue: number[] = [];
    for (let child = this.firstChild[0]!; child !== NO_NODE; child = this.nextSibling[child]!) {
      this.fail[child] = 0;
      queue.push(child);
    }
    for (let head = 0; head < queue.length; head++) {
      const node = queue[head]!;
      for (let child = this.firstChild[node]!; child !== NO_NODE; child = this.nextSibling[child]!) {
        const code = this.charOf[child]!;
        let target = this.fail[node]!;
        let next = NO_NODE;
        for (;;) {
          next = target === 0 ? this.rootNext[code]! || NO_NODE : this.child(target, code);
          if (next !== NO_NODE || target === 0) break;
          target = this.fail[target]!;
        }
        const failTo = next === NO_NODE ? 0 : next;
        this.fail[child] = failTo;
        this.dictLink[child] = this.output[failTo] !== NO_NODE ? failTo : this.dictLink[failTo]!;
        queue.push(child);
      }
    }
  }
}

/** Length in code points, counted only when it can matter. */
function isShort(text: string, limit: number): boolean {
  if (text.length <= limit) return true;
  return text.length <= limit * 2 && [...text].length <= limit;
}

/** Multiplicative hashing takes the top bits; the table is at most half full, so probes stay short. */
function slotOf(node: number, code: number, shift: number): number {
  return (Math.imul(node, 0x9e3779b1) ^ Math.imul(code + 1, 0x85ebca6b)) >>> shift;
}

const NON_ASCII_WORD = /[\p{L}\p{N}\p{M}]/u;

/** Letters, digits, marks and `_`: what a short trigger may not be glued to. */
function isWordCode(code: number): boolean {
  if (code < 128) {
    return (
      (code >= 48 && code <= 57) || (code >= 65 && code <= 90) || (code >= 97 && code <= 122) || code === 95
    );
  }
  return NON_ASCII_WORD.test(String.fromCharCode(code));
}
