import { isCodeArgument, readCommandLine, type SimpleCommand } from '@birdie/entrypoints';
import type { CommandWordPattern } from './approval-pattern.js';

/**
 * Whether one simple command (its words after quote removal) matches a command pattern. Literals match a word
 * exactly (no Unicode folding: a look-alike is another word); `*` matches any run of words and a glob word any
 * characters within one word, but neither ever stands for a code-taking or file-writing argument of the program
 * (`isCodeArgument`) in an allow rule: `run_bash(git log *)` does not match `git log --output=~/.bashrc`. In a deny
 * or ask rule (`restrict`) it stands for any word: `run_bash(git push *)` denies `git push --receive-pack=x`.
 */
export function matchCommandWords(
  pattern: readonly CommandWordPattern[],
  words: readonly string[],
  /** `restrict` (a deny or ask rule): a `*` stands for any word, code-taking ones included. */
  mode: 'allow' | 'restrict' = 'allow',
): boolean {
  const guarded = (w: number) => mode === 'restrict' || !isCodeArgument(words, w);
  // Backtracking over (pattern index, word index); patterns are short, so the memo is a small bitmap.
  const seen = new Set<number>();
  const width = words.length + 1;
  const step = (p: number, w: number): boolean => {
    if (p === pattern.length) return w === words.length;
    const key = p * width + w;
    if (seen.has(key)) return false;
    seen.add(key);
    const part = pattern[p] as CommandWordPattern;
    if (part.kind === 'any-words') {
      if (step(p + 1, w)) return true;
      return w < words.length && w > 0 && guarded(w) && step(p, w + 1);
    }
    if (w >= words.length) return false;
    const word = words[w] as string;
    if (part.kind === 'literal') return part.text === word && step(p + 1, w + 1);
    return w > 0 && part.regexp.test(word) && guarded(w) && step(p + 1, w + 1);
  };
  return step(0, 0);
}

const SUBCOMMAND = /^[a-z][a-z0-9-]*$/;
const SAFE_WORD = /^[A-Za-z0-9_@%+=:,./-]+$/;

function quoteWord(word: string): string {
  return SAFE_WORD.test(word) ? word : `'${word.replaceAll("'", '')}'`;
}

/**
 * The pattern the REPL offers for "allow this command prefix for the session": the program and its subcommand, then
 * `*` (`npm test --watch` → `run_bash(npm test *)`). Undefined when there is no safe prefix to offer: the line is not
 * one placed simple command, or its program runs other commands (`env`, `sudo`, a shell), or a word holds a quote.
 */
export function suggestCommandPattern(command: string, tool = 'run_bash'): string | undefined {
  const reading = readCommandLine(command);
  if (!reading.placed || reading.commands.length !== 1) return undefined;
  const { words } = reading.commands[0] as SimpleCommand;
  const program = words[0] as string;
  if (!SAFE_WORD.test(program) || isCodeArgument([program, ''], 1)) return undefined;
  const prefix = [program];
  const sub = words[1];
  if (sub !== undefined && SUBCOMMAND.test(sub)) prefix.push(sub);
  if (prefix.some((w) => w.includes("'"))) return undefined;
  return `${tool}(${prefix.map(quoteWord).join(' ')} *)`;
}
