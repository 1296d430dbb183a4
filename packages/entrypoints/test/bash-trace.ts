import { randomBytes } from 'node:crypto';
import { existsSync } from 'node:fs';
import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { matchesCommand, type SimpleCommand } from '../src/bash-simple-commands.js';

/**
 * The tracing shim of the differential tests: bash's own execution trace (`set -x`), switched on through
 * `BASH_ENV`, which every non-interactive bash reads before its script, so the real `bash:` entrypoint runs
 * unchanged. Why xtrace: bash prints each simple command it executes after expansion (argv exactly, builtins,
 * functions, subshells, command substitutions and `eval`/`trap` code included), quoted so that it reads back
 * without loss. A PATH of logging shims misses builtins, functions and absolute paths (`enable -n` changes what
 * `read` or `declare` do); a DEBUG trap sees `$BASH_COMMAND`, the command before expansion, not the argv.
 *
 * PS4 carries a number each bash draws when it reads BASH_ENV (not `$$`: bash runs a last command such as `bash f.sh`
 * in its own process): subshells keep it, a child bash draws its own, so lines of the template's own shell are told
 * apart from those of a child bash, whose code the template analysis does not see.
 */
export interface TraceShim {
  /** Environment for `RunOptions.env`, writing to `file`. */
  env(file: string): Record<string, string>;
  /** Reads a trace file (absent: nothing ran). */
  read(file: string): Promise<TracedCommand[]>;
}

export interface TracedCommand {
  /** The number of the bash that ran it (see above). */
  pid: string;
  /** The command's words after expansion; leading assignments left out (empty: an assignment alone). */
  argv: string[];
  /** A compound command's header (`for`, `case`, `[[`, `((`, `x=( … )`) as bash prints it: not a simple command. */
  compound: boolean;
}

export async function traceShim(dir: string, path = '/usr/local/bin:/usr/bin:/bin'): Promise<TraceShim> {
  const token = randomBytes(6).toString('hex');
  const setup = join(dir, `trace-${token}.sh`);
  await writeFile(
    setup,
    `exec 9>>"$BIRDIE_TRACE"\nBASH_XTRACEFD=9\ntrace_shell_${token}=$SRANDOM\nPS4=$'\\x01''\${trace_shell_${token}}'$'\\x02'${token}' '\nset -x\n`,
  );
  const start = new RegExp(`(?:^|\\n)\\u0001+(\\d*)\\u0002${token} `, 'g');
  return {
    env: (file) => ({ BASH_ENV: setup, BIRDIE_TRACE: file, PATH: path }),
    async read(file) {
      if (!existsSync(file)) return [];
      const text = await readFile(file, 'utf8');
      const heads = [...text.matchAll(start)];
      return heads.map((head, k) => {
        const from = head.index! + head[0].length;
        const to = k + 1 < heads.length ? heads[k + 1]!.index! : text.length;
        return parseEntry(head[1]!, text.slice(from, to).replace(/\n$/, ''));
      });
    },
  };
}

const COMPOUND_HEADS = new Set(['for', 'case', 'select', '[[', '((']);
const ASSIGNMENT = /^[A-Za-z_]\w*(\[[^\]]*\])?\+?=/;

function parseEntry(pid: string, line: string): TracedCommand {
  const first = /^\S*/.exec(line)![0];
  if (COMPOUND_HEADS.has(first) || /^[A-Za-z_]\w*\+?=\(/.test(first))
    return { pid, argv: [], compound: true };
  const words = xtraceWords(line);
  let k = 0;
  while (k < words.length && ASSIGNMENT.test(words[k]!)) k += 1;
  return { pid, argv: words.slice(k), compound: false };
}

/** Reads bash's xtrace quoting: words split by spaces, `'…'`, `\x` and `$'…'` (with C escapes). */
export function xtraceWords(line: string): string[] {
  const words: string[] = [];
  let word: string | undefined;
  let i = 0;
  const add = (text: string) => {
    word = (word ?? '') + text;
  };
  while (i < line.length) {
    const ch = line[i]!;
    if (ch === ' ') {
      if (word !== undefined) words.push(word);
      word = undefined;
      i += 1;
    } else if (ch === "'") {
      const close = line.indexOf("'", i + 1);
      add(line.slice(i + 1, close === -1 ? line.length : close));
      i = close === -1 ? line.length : close + 1;
    } else if (ch === '\\') {
      add(line[i + 1] ?? '');
      i += 2;
    } else if (ch === '$' && line[i + 1] === "'") {
      const [text, end] = ansiC(line, i + 2);
      add(text);
      i = end + 1;
    } else {
      add(ch);
      i += 1;
    }
  }
  if (word !== undefined) words.push(word);
  return words;
}

const SIMPLE_ESCAPES: Record<string, string> = {
  a: '\x07',
  b: '\b',
  e: '\x1b',
  E: '\x1b',
  f: '\f',
  n: '\n',
  r: '\r',
  t: '\t',
  v: '\v',
  '\\': '\\',
  "'": "'",
  '"': '"',
  '?': '?',
};

/** Decodes `$'…'` from `from` (after the quote) to its closing quote; returns the bytes as text and the quote's index. */
function ansiC(line: string, from: number): [string, number] {
  const bytes: number[] = [];
  const push = (text: string) => bytes.push(...Buffer.from(text, 'utf8'));
  let i = from;
  while (i < line.length && line[i] !== "'") {
    const ch = line[i]!;
    if (ch !== '\\') {
      push(ch);
      i += 1;
      continue;
    }
    const next = line[i + 1] ?? '';
    const octal = /^[0-7]{1,3}/.exec(line.slice(i + 1))?.[0];
    const hex = /^x([0-9a-fA-F]{1,2})/.exec(line.slice(i + 1));
    if (octal) {
      bytes.push(Number.parseInt(octal, 8) & 0xff);
      i += 1 + octal.length;
    } else if (hex) {
      bytes.push(Number.parseInt(hex[1]!, 16));
      i += 1 + hex[0].length;
    } else if (next in SIMPLE_ESCAPES) {
      push(SIMPLE_ESCAPES[next]!);
      i += 2;
    } else {
      push(`\\${next}`);
      i += 2;
    }
  }
  return [Buffer.from(bytes).toString('utf8'), i];
}

/**
 * The commands of the template's own shell (the pid of the first traced line) that no simple command of the
 * analysis can produce, and how many commands child shells ran.
 */
export function unseenCommands(
  commands: readonly SimpleCommand[],
  trace: readonly TracedCommand[],
): { unseen: string[][]; childCommands: number; traced: number } {
  const pid = trace[0]?.pid;
  const unseen: string[][] = [];
  let childCommands = 0;
  for (const entry of trace) {
    if (entry.compound || entry.argv.length === 0) continue;
    if (entry.pid !== pid) {
      childCommands += 1;
      continue;
    }
    if (!commands.some((command) => matchesCommand(command, entry.argv))) unseen.push(entry.argv);
  }
  return { unseen, childCommands, traced: trace.length };
}
