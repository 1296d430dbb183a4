import { posix, resolve, sep } from 'node:path';
import { type CommandLineReading, readCommandLine } from '@birdie/entrypoints';
import picomatch from 'picomatch';
import {
  type ApprovalPattern,
  type ApprovalRule,
  type CommandWordPattern,
  parseApprovalPattern,
  type RuleEffect,
} from './approval-pattern.js';
import { matchCommandWords, suggestCommandPattern } from './command-pattern.js';
import { couldBe, looseCommands, readsCodeFromInput, restrictingViews, suffixes } from './command-views.js';
import { type LinkedPath, linkedPath } from './linked-path.js';

/** What a rule set is asked about: a tool (its name, skill, whether it runs a raw command) and the call's arguments. */
export interface RuleCall {
  tool: { name: string; skill?: string; raw?: boolean };
  args: Readonly<Record<string, unknown>>;
  /**
   * The workspace the call's relative paths are in. With it, an argument that names a path through a symbolic link
   * is matched by the real path (relative to the workspace's real path): `docs/gh/ci.yml` with `docs/gh ->
   * ../.github` is `.github/ci.yml`, and a link out of the workspace matches no allow rule.
   */
  root?: string;
}

export interface RuleDecision {
  effect: RuleEffect;
  /** The rule that decided (for an allowed raw command of several simple commands: the first of `rules`). */
  rule: ApprovalRule;
  /** Every allow rule an allowed raw command used, one or more per simple command. */
  rules?: ApprovalRule[];
  /** Why a deny or ask rule asks instead: the command line could not be read (`readCommandLine`'s reason). */
  unplaced?: string;
}

/**
 * Why allow rules that name this tool did not allow a call: the first simple command none of them matches, or why
 * the command line could not be read. The unattended refusal and the REPL question show it.
 */
export interface RuleMiss {
  rules: ApprovalRule[];
  /** The simple command no allow rule matches (as written in the line). */
  command?: string;
  /** The reader's reason when the line could not be placed, with its offset. */
  unplaced?: { reason: string; offset: number };
  /**
   * A rule's `*` would cover `command` but for an argument that runs another program or code (`git bisect run CMD`,
   * `npm exec CMD`, `test -v 'a[$(…)]'`, `git log --output=F`): a `*` never stands for one.
   */
  runsCode?: boolean;
  /**
   * The call runs a raw command and none of the rules is a command pattern (`run_bash`, `shell:*`): they can never
   * allow one. `example` is a command pattern that would allow this call's (first) command.
   */
  noCommandPattern?: { example: string };
}

export interface RuleSet {
  readonly rules: readonly ApprovalRule[];
  /** deny > ask > allow; undefined when no rule applies (the tool's declaration and the mode decide). */
  decide(call: RuleCall): RuleDecision | undefined;
  /** For a call `decide` did not allow: what its tool's allow rules did not cover (undefined: no such rules). */
  miss(call: RuleCall): RuleMiss | undefined;
}

interface Compiled {
  rule: ApprovalRule;
  pattern: ApprovalPattern;
  globs?: Array<{ key: string; test: (value: string) => boolean }>;
}

/** The command of a raw tool's call: its `command` argument, else its only string argument. */
export function rawCommandOf(args: Readonly<Record<string, unknown>>): string | undefined {
  if (typeof args.command === 'string') return args.command;
  const strings = Object.values(args).filter((v): v is string => typeof v === 'string');
  return strings.length === 1 ? strings[0] : undefined;
}

function targets(pattern: ApprovalPattern, tool: RuleCall['tool']): boolean {
  if (pattern.skill !== undefined && pattern.skill !== tool.skill) return false;
  return pattern.tool === undefined || pattern.tool === tool.name;
}

/**
 * `docs/../x` and `./x` are normalised before a glob sees them; an allow never matches a path that leaves its start.
 * A deny or ask rule also sees the absolute path the value names in the workspace, lexical and real: a deny rule
 * `write_file(path=/etc/**)` covers `../../etc/x` and `w/x` with `w -> /etc`.
 */
function argumentMatches(compiled: Compiled, call: RuleCall, effect: RuleEffect): boolean {
  for (const { key, test } of compiled.globs ?? []) {
    const value = call.args[key];
    if (typeof value !== 'string' || value.includes('\0')) return false;
    const normal = posix.normalize(value).replace(/^\.\/+/, '');
    const linked = call.root === undefined ? undefined : linkedPath(call.root, value);
    if (effect !== 'allow') {
      if (!restrictingSpellings(call.root, value, normal, linked).some((spelling) => test(spelling)))
        return false;
      continue;
    }
    if (linked !== undefined) {
      // Through a symbolic link: the real path decides; leaving the workspace is never allowed.
      if (linked.outside || !test(linked.path)) return false;
      continue;
    }
    if (normal === '..' || normal.startsWith('../') || value.includes('\\')) return false;
    if (!test(normal)) return false;
  }
  return true;
}

/** Every spelling a deny or ask rule matches a path argument as: as written, normalised, absolute, and real. */
function restrictingSpellings(
  root: string | undefined,
  value: string,
  normal: string,
  linked: LinkedPath | undefined,
): string[] {
  const spellings = [normal, value];
  if (root !== undefined) spellings.push(resolve(root, value).split(sep).join('/'));
  if (linked?.real !== undefined) spellings.push(linked.real);
  if (linked !== undefined && !linked.outside) spellings.push(linked.path);
  return spellings;
}

const parsed = new Map<string, ApprovalPattern>();

/** Patterns are parsed once per process (rule sets are rebuilt per step with the session's and agent's rules). */
function parseCached(text: string): ApprovalPattern {
  let pattern = parsed.get(text);
  if (!pattern) {
    pattern = parseApprovalPattern(text);
    if (parsed.size >= 10_000) parsed.clear();
    parsed.set(text, pattern);
  }
  return pattern;
}

/** Compiles rules once (patterns parsed, globs built); throws `ApprovalRuleError` on a malformed pattern. */
export function compileRules(rules: readonly ApprovalRule[]): RuleSet {
  const compiled: Compiled[] = rules.map((rule) => {
    const pattern = parseCached(rule.pattern);
    const entry: Compiled = { rule, pattern };
    if (pattern.arguments)
      entry.globs = pattern.arguments.map(({ key, glob }) => ({ key, test: picomatch(glob, { dot: true }) }));
    return entry;
  });
  const byEffect = (effect: RuleEffect) => compiled.filter((c) => c.rule.effect === effect);
  const deny = byEffect('deny');
  const ask = byEffect('ask');
  const allow = byEffect('allow');

  const readings = new WeakMap<RuleCall['args'], CommandLineReading | null>();
  const reading = (call: RuleCall): CommandLineReading | null => {
    let found = readings.get(call.args);
    if (found === undefined) {
      const command = call.tool.raw ? rawCommandOf(call.args) : undefined;
      found = command === undefined ? null : readCommandLine(command);
      readings.set(call.args, found);
    }
    return found;
  };

  const looseReadings = new WeakMap<RuleCall['args'], string[][]>();
  /** The loose reading of a call's command line, made once for all the rules. */
  const looseOf = (call: RuleCall): string[][] => {
    let found = looseReadings.get(call.args);
    if (found === undefined) {
      found = looseCommands(rawCommandOf(call.args) ?? '');
      looseReadings.set(call.args, found);
    }
    return found;
  };

  /** A deny or ask rule: any simple command matching is enough; an unreadable line asks (fail closed). */
  const restricting = (list: Compiled[], call: RuleCall): RuleDecision | undefined => {
    let unreadable: RuleDecision | undefined;
    for (const c of list) {
      if (!targets(c.pattern, call.tool)) continue;
      if (c.pattern.command) {
        if (!call.tool.raw) continue;
        const read = reading(call);
        if (!read) continue;
        const pattern = c.pattern.command;
        const matches = (words: readonly string[]) =>
          restrictingViews(words).some((view) => matchCommandWords(pattern, view, 'restrict'));
        if (!read.placed) {
          // A deny rule must not become a question `--yes` answers: a loose reading that could run it denies, and so
          // does one whose words could be the rule's once bash expanded them (`$g push`, `"$(echo rm)" x`,
          // `/bin/r? x`, `git $(echo push)`, `$CMD`): nothing shows they are not.
          const direct = (view: readonly string[]) => matchCommandWords(pattern, view, 'restrict');
          const fits = (view: readonly string[]) => direct(view) || couldFit(pattern, view, direct);
          if (c.rule.effect === 'deny' && looseOf(call).some((words) => restrictingViews(words).some(fits)))
            return { effect: 'deny', rule: c.rule, unplaced: read.reason };
          unreadable ??= { effect: 'ask', rule: c.rule, unplaced: read.reason };
          continue;
        }
        if (read.commands.some((s) => matches(s.words))) return { effect: c.rule.effect, rule: c.rule };
        // A shell or interpreter running what it reads from its input (`echo 'git push' | sh`): any word of the line
        // may be where one of its commands starts.
        if (
          read.commands.some((s) => readsCodeFromInput(s.words)) &&
          looseOf(call).some((words) => suffixes(words).some(matches))
        )
          return { effect: c.rule.effect, rule: c.rule };
        continue;
      }
      if (c.pattern.arguments && !argumentMatches(c, call, c.rule.effect)) continue;
      return { effect: c.rule.effect, rule: c.rule };
    }
    return unreadable;
  };

  const allowing = (call: RuleCall): RuleDecision | undefined => {
    const mine = allow.filter((c) => targets(c.pattern, call.tool));
    if (mine.length === 0) return undefined;
    if (!call.tool.raw) {
      for (const c of mine) {
        if (c.pattern.command) continue;
        if (c.pattern.arguments && !argumentMatches(c, call, 'allow')) continue;
        return { effect: 'allow', rule: c.rule };
      }
      return undefined;
    }
    // A raw command: only command patterns apply, and every simple command must match one of them.
    const read = reading(call);
    if (!read?.placed || read.commands.length === 0) return undefined;
    const used: ApprovalRule[] = [];
    for (const simple of read.commands) {
      const by = mine.find((c) => c.pattern.command && matchCommandWords(c.pattern.command, simple.words));
      if (!by) return undefined;
      if (!used.includes(by.rule)) used.push(by.rule);
    }
    return { effect: 'allow', rule: used[0] as ApprovalRule, rules: used };
  };

  return {
    rules,
    decide(call) {
      return restricting(deny, call) ?? restricting(ask, call) ?? allowing(call);
    },
    miss(call) {
      const mine = allow.filter((c) => targets(c.pattern, call.tool));
      if (mine.length === 0) return undefined;
      const rulesOf = mine.map((c) => c.rule);
      if (!call.tool.raw) return { rules: rulesOf };
      const read = reading(call);
      if (!read) return { rules: rulesOf };
      if (!mine.some((c) => c.pattern.command)) {
        // Bare names only: no command could have matched, whatever it is; the miss says so with a pattern to write.
        const first = read.placed ? read.commands[0] : undefined;
        const text = first ? (rawCommandOf(call.args) ?? '').slice(first.start, first.end) : '';
        const example = suggestCommandPattern(text, call.tool.name) ?? `${call.tool.name}(git status)`;
        return { rules: rulesOf, noCommandPattern: { example } };
      }
      if (!read.placed) return { rules: rulesOf, unplaced: { reason: read.reason, offset: read.offset } };
      const command = rawCommandOf(call.args) ?? '';
      const first = read.commands.find(
        (s) => !mine.some((c) => c.pattern.command && matchCommandWords(c.pattern.command, s.words)),
      );
      if (!first) return { rules: rulesOf };
      const runsCode = mine.some(
        (c) => c.pattern.command && matchCommandWords(c.pattern.command, first.words, 'restrict'),
      );
      return {
        rules: rulesOf,
        command: command.slice(first.start, first.end),
        ...(runsCode ? { runsCode } : {}),
      };
    },
  };
}

/** How a rule is named in messages: `run_bash(git status)` (agent nightly.md). */
export function describeRule(rule: ApprovalRule): string {
  const where = rule.source.name ? `${rule.source.kind} ${rule.source.name}` : rule.source.kind;
  return `${rule.effect} rule \`${rule.pattern}\` (${where})`;
}

/** One sentence for a call no allow rule allowed, naming the rules that did not match and what they missed. */
export function describeMiss(miss: RuleMiss): string {
  const names = miss.rules.map(
    (r) => `\`${r.pattern}\` (${r.source.kind}${r.source.name ? ` ${r.source.name}` : ''})`,
  );
  const list = names.join(', ');
  if (miss.noCommandPattern)
    return `the allow rule${names.length > 1 ? 's' : ''} ${list} name${names.length > 1 ? '' : 's'} no command: a raw command is allowed only by a command pattern such as \`${miss.noCommandPattern.example}\``;
  if (miss.unplaced)
    return `the allow rule${names.length > 1 ? 's' : ''} ${list} cannot apply: the command has ${miss.unplaced.reason} (at ${miss.unplaced.offset + 1})`;
  if (miss.command !== undefined && miss.runsCode)
    return `the allow rule${names.length > 1 ? 's' : ''} ${list} do${names.length > 1 ? '' : 'es'} not cover \`${miss.command}\`: it runs another program or code, which a \`*\` never stands for (write that command out in full)`;
  if (miss.command !== undefined)
    return `the allow rule${names.length > 1 ? 's' : ''} ${list} do${names.length > 1 ? '' : 'es'} not match \`${miss.command}\``;
  return `the allow rule${names.length > 1 ? 's' : ''} ${list} do${names.length > 1 ? '' : 'es'} not match this call`;
}

/**
 * Whether a loose command could be one `pattern` matches once bash expanded its words: each word that could be the
 * pattern's literal word at its place stands for it (`git $(echo push) x`, `/bin/r? x`), and a word that is nothing
 * but an expansion (`$X`, `$ARGS`) could be several words, so the pattern fits as soon as the words before it do.
 */
function couldFit(
  pattern: readonly CommandWordPattern[],
  view: readonly string[],
  direct: (view: readonly string[]) => boolean,
): boolean {
  const candidate: string[] = [];
  for (const [i, word] of view.entries()) {
    const own = i === 0 ? posix.basename(word) : word;
    if (/^\$[A-Za-z0-9_]*$/.test(own))
      return pattern.slice(0, i).every((p, k) => p.kind !== 'literal' || p.text === candidate[k]);
    const p = pattern[i];
    candidate.push(p?.kind === 'literal' && couldBe(own, p.text) ? p.text : word);
  }
  return direct(candidate);
}
