import type { Skill } from '@birdie/skill-parser';
import type { TriggerOptions } from './types.js';

export interface PatternOwner {
  skill: number;
  wholeWord: boolean;
}

/** One distinct normalized trigger and every skill that declares it. */
export interface Pattern {
  text: string;
  /** The pattern begins / ends with a word character, so a whole-word match must not touch one on that side. */
  wordAtStart: boolean;
  wordAtEnd: boolean;
  owners: PatternOwner[];
}

/** Whether a skill's triggers are considered at all: it has prose to inject that is not injected anyway. */
export function isTriggerable(skill: Skill): boolean {
  return !skill.alwaysInject && skill.body !== null && skill.body.trim() !== '' && skill.triggers.length > 0;
}

/** Lower case, whitespace runs as one space, trimmed: the form triggers are compared in. */
export function normalizeTrigger(trigger: string): string {
  const lower = trigger.toLowerCase();
  return UNTIDY_SPACE.test(lower) ? lower.replace(/\s+/g, ' ').trim() : lower;
}

/** Whitespace that is not already single inner spaces. */
const UNTIDY_SPACE = /^\s|\s$|[^\S ]| {2}/;

/** The distinct triggers of the triggerable skills (indexes into `skills`), in skill order. */
export function collectPatterns(skills: readonly Skill[], options: TriggerOptions = {}): Pattern[] {
  const mode = options.wholeWord ?? 'short';
  const shortLength = options.shortLength ?? 3;
  const byText = new Map<string, Pattern>();
  for (let index = 0; index < skills.length; index++) {
    const skill = skills[index]!;
    if (!isTriggerable(skill)) continue;
    for (const raw of skill.triggers) {
      const text = normalizeTrigger(raw);
      if (text === '') continue;
      const wholeWord = mode === 'always' || (mode === 'short' && isShort(text, shortLength));
      let pattern = byText.get(text);
      if (!pattern) {
        pattern = {
          text,
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
  }
  return [...byText.values()];
}

/** Length in code points, counted only when it can matter. */
function isShort(text: string, limit: number): boolean {
  if (text.length <= limit) return true;
  return text.length <= limit * 2 && [...text].length <= limit;
}

const NON_ASCII_WORD = /[\p{L}\p{N}\p{M}]/u;

/** Letters, digits, marks and `_`: what a whole-word trigger may not be glued to. */
export function isWordCode(code: number): boolean {
  if (code < 128) {
    return (
      (code >= 48 && code <= 57) || (code >= 65 && code <= 90) || (code >= 97 && code <= 122) || code === 95
    );
  }
  return NON_ASCII_WORD.test(String.fromCharCode(code));
}

/** Exactly the characters `\s` matches, so messages and triggers are normalized alike. */
export function isSpaceCode(code: number): boolean {
  if (code < 128) return code === 32 || (code >= 9 && code <= 13);
  return (
    code === 0xa0 ||
    code === 0x1680 ||
    (code >= 0x2000 && code <= 0x200a) ||
    code === 0x2028 ||
    code === 0x2029 ||
    code === 0x202f ||
    code === 0x205f ||
    code === 0x3000 ||
    code === 0xfeff
  );
}
