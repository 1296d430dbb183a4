/**
 * The grammar of approval-rule patterns (documented in the README, "Approval rules"):
 *
 *   pattern  = target [ "(" inner ")" ]
 *   target   = tool | skill ":" tool | skill ":*"
 *   inner    = command | argument *( "," argument )
 *   argument = key "=" glob              (picomatch glob on that string argument: `write_file(path=docs/**)`)
 *   command  = program *( word )         (a raw shell tool's command: `run_bash(npm test *)`)
 *
 * In a command, words are separated by blanks, quotes keep blanks in a word (`'a b'`), a word that is only `*`
 * stands for any number of words (none included), and a `*` inside a word for any characters within that word.
 * The program (first word) is literal. The inner part is an argument list when it starts with `key=`.
 */

export type RuleEffect = 'allow' | 'ask' | 'deny';

export interface RuleSource {
  kind: 'user' | 'project' | 'agent' | 'skill' | 'operator' | 'session';
  /** A file path or a skill name. */
  name?: string;
}

export interface ApprovalRule {
  pattern: string;
  effect: RuleEffect;
  source: RuleSource;
}

/** One word of a command pattern: a literal, any run of words (`*`), or a word glob (`--format=*`). */
export type CommandWordPattern =
  | { kind: 'literal'; text: string }
  | { kind: 'any-words' }
  | { kind: 'glob'; text: string; regexp: RegExp };

export interface ArgumentConstraint {
  key: string;
  glob: string;
}

export interface ApprovalPattern {
  /** The pattern as written. */
  text: string;
  /** The skill it names (`filesystem:*`, `filesystem:read_file`), if any. */
  skill?: string;
  /** The tool it names; undefined for `skill:*`. */
  tool?: string;
  /** A command pattern: the pattern applies to raw shell tools only (`run_bash(git status)`). */
  command?: CommandWordPattern[];
  /** Constraints on string arguments (`write_file(path=docs/**)`). */
  arguments?: ArgumentConstraint[];
}

export class ApprovalRuleError extends Error {
  override name = 'ApprovalRuleError';
  readonly code = 'bad-approval-rule' as const;
  /** 0-based offset in the pattern of what is wrong. */
  readonly offset: number;
  readonly pattern: string;

  constructor(pattern: string, offset: number, reason: string) {
    super(`Bad approval rule "${pattern}" at ${offset + 1}: ${reason}`);
    this.pattern = pattern;
    this.offset = offset;
  }
}

export function isApprovalRuleError(value: unknown): value is ApprovalRuleError {
  return value instanceof ApprovalRuleError;
}

/**
 * Why `text` is not an approval pattern (`ApprovalRuleError`'s message), or undefined when it is one: for the callers
 * that leave a bad pattern out rather than stop (an agent's `approve` entry, a session's saved pattern the grammar
 * now refuses). Any other failure is thrown.
 */
export function approvalPatternProblem(text: string): string | undefined {
  try {
    parseApprovalPattern(text);
    return undefined;
  } catch (error) {
    if (isApprovalRuleError(error)) return error.message;
    throw error;
  }
}

const TOOL = /^[A-Za-z0-9_][A-Za-z0-9_.-]*$/;
const SKILL = /^[A-Za-z0-9][A-Za-z0-9_.-]*$/;
const ARGUMENT_START = /^[a-z_][a-z0-9_]*=/;
const CONTROL = /[\u0000-\u001f\u007f]/;

/** Parses one pattern; throws `ApprovalRuleError` (code `bad-approval-rule`, with the offset) when it is malformed. */
export function parseApprovalPattern(text: string): ApprovalPattern {
  if (typeof text !== 'string' || text.trim() === '')
    throw new ApprovalRuleError(String(text), 0, 'the pattern is empty');
  const control = CONTROL.exec(text);
  if (control) throw new ApprovalRuleError(text, control.index, 'a control character');
  if (text !== text.trim()) throw new ApprovalRuleError(text, 0, 'blanks around the pattern');
  const open = text.indexOf('(');
  const head = open < 0 ? text : text.slice(0, open);
  const pattern: ApprovalPattern = { text, ...parseTarget(text, head) };
  if (open < 0) return pattern;
  if (!text.endsWith(')'))
    throw new ApprovalRuleError(text, text.length, 'the pattern does not end with `)`');
  if (pattern.tool === undefined)
    throw new ApprovalRuleError(text, open, '`skill:*` takes no arguments; name the tool');
  const inner = text.slice(open + 1, -1);
  if (inner.trim() === '') throw new ApprovalRuleError(text, open + 1, 'empty parentheses');
  if (ARGUMENT_START.test(inner)) pattern.arguments = parseArguments(text, inner, open + 1);
  else pattern.command = parseCommand(text, inner, open + 1);
  return pattern;
}

function parseTarget(text: string, head: string): { skill?: string; tool?: string } {
  const colon = head.indexOf(':');
  if (colon < 0) {
    if (!TOOL.test(head))
      throw new ApprovalRuleError(text, 0, 'a tool name is letters, digits, `_`, `-`, `.`');
    return { tool: head };
  }
  const skill = head.slice(0, colon);
  const tool = head.slice(colon + 1);
  if (!SKILL.test(skill))
    throw new ApprovalRuleError(text, 0, 'a skill name is letters, digits, `_`, `-`, `.`');
  if (tool === '*') return { skill };
  if (!TOOL.test(tool))
    throw new ApprovalRuleError(text, colon + 1, 'after `skill:` comes a tool name or `*`');
  return { skill, tool };
}

function parseArguments(text: string, inner: string, base: number): ArgumentConstraint[] {
  const constraints: ArgumentConstraint[] = [];
  // `, key=` starts the next argument; a comma elsewhere belongs to the glob (`{a,b}`).
  const parts = inner.split(/,\s*(?=[a-z_][a-z0-9_]*=)/);
  let cursor = 0;
  for (const part of parts) {
    cursor = inner.indexOf(part, cursor);
    const offset = base + cursor;
    cursor += part.length;
    const eq = part.indexOf('=');
    const key = part.slice(0, eq);
    const glob = part.slice(eq + 1);
    if (eq <= 0 || !/^[a-z_][a-z0-9_]*$/.test(key))
      throw new ApprovalRuleError(text, offset, 'an argument constraint is `name=glob`');
    if (glob === '') throw new ApprovalRuleError(text, offset + eq + 1, `an empty glob for \`${key}\``);
    if (constraints.some((c) => c.key === key))
      throw new ApprovalRuleError(text, offset, `\`${key}\` is constrained twice`);
    constraints.push({ key, glob });
  }
  return constraints;
}

function globRegExp(word: string): RegExp {
  const body = word
    .split('\0')
    .map((piece) => piece.replace(/[.+?^${}()|[\]\\*]/g, '\\$&'))
    .join('.*');
  return new RegExp(`^${body}$`, 's');
}

/** Characters that join, group or redirect commands, or substitute one, where a shell reads them unquoted. */
const SHELL_SYNTAX = /[;|&<>()`]/;

function parseCommand(text: string, inner: string, base: number): CommandWordPattern[] {
  const words: CommandWordPattern[] = [];
  let i = 0;
  while (i < inner.length) {
    while (inner[i] === ' ' || inner[i] === '\t') i += 1;
    if (i >= inner.length) break;
    const start = i;
    // `\0` marks an unquoted `*` while the word is read (a pattern cannot hold NUL: control characters are refused).
    let word = '';
    let star = false;
    let quoted = false;
    while (i < inner.length && inner[i] !== ' ' && inner[i] !== '\t') {
      const c = inner[i] as string;
      if (c === "'" || c === '"') {
        const close = inner.indexOf(c, i + 1);
        if (close < 0) throw new ApprovalRuleError(text, base + i, 'an unterminated quote');
        word += inner.slice(i + 1, close);
        quoted = true;
        i = close + 1;
        continue;
      }
      // A command rule matches one simple command as the reader sees it: an operator or a redirection in the pattern
      // (`git status; rm x`, `echo * | cat`, `touch P && *`) would make a rule that matches nothing, a deny rule that
      // refuses nothing.
      if (SHELL_SYNTAX.test(c))
        throw new ApprovalRuleError(
          text,
          base + i,
          `\`${c}\` is shell syntax: a command rule matches one simple command, without operators, groups or ` +
            'redirections (write one rule for each command; quote a character meant literally)',
        );
      if (c === '*') {
        word += '\0';
        star = true;
      } else word += c;
      i += 1;
    }
    if (words.length === 0 && star)
      throw new ApprovalRuleError(text, base + start, 'the program (first word) cannot be a pattern');
    if (word === '\0' && !quoted) words.push({ kind: 'any-words' });
    else if (star) words.push({ kind: 'glob', text: word.replaceAll('\0', '*'), regexp: globRegExp(word) });
    else words.push({ kind: 'literal', text: word });
  }
  if (words.length === 0) throw new ApprovalRuleError(text, base, 'an empty command');
  return words;
}
