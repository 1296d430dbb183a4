import { ENV_SETTING, literalText, PREFIXES, prefixOptionWords, splitWords } from './bash-words.js';

/** Shells: the word after `-c` is a script, and so is what they read from a here-string or here-document. */
export const SHELLS: ReadonlySet<string> = new Set([
  'bash',
  'sh',
  'dash',
  'zsh',
  'ksh',
  'mksh',
  'ash',
  'posh',
  'yash',
]);
const SCRIPT_FLAG = /^-[A-Za-z]*c[A-Za-z]*$/;
const ASSIGNMENT = /^[A-Za-z_]\w*(\[[^\]]*\])?\+?=/;

/**
 * A shell runs as code the word after `-c`, else its first operand (a script file) or its input. A value there
 * would be the program (the model could name a file it wrote). Words are split with quotes respected: in
 * `sh -c "echo {x}"` the value is inside the script.
 */
export function shellProblem(shell: string, command: string, ph: string): string | undefined {
  const { args, input, inWord } = shellArguments(command);
  const complete = inWord ? args.slice(0, -1) : args;
  const flag = complete.findIndex((w) => SCRIPT_FLAG.test(w));
  if (input && flag === -1) return `${ph} is what '${shell}' reads as its script`;
  if (input) return undefined;
  if (flag !== -1) {
    return scriptStillToCome(complete.slice(flag + 1))
      ? `${ph} is the script of '${shell} -c', which runs it as code`
      : undefined;
  }
  if (complete.every((w) => /^[-+]/.test(w)))
    return `${ph} is the script file '${shell}' runs; name the script in the template`;
  return undefined;
}

/**
 * Whether, after `-c`, the shell is still waiting for its script: `-c` takes the first non-option word, so options
 * (`sh -c -x`), an option's value (`-o errexit`) and a `--` (`sh -c -- SCRIPT`) may stand between them.
 */
function scriptStillToCome(words: readonly string[]): boolean {
  for (let k = 0; k < words.length; k++) {
    const word = words[k]!;
    if (word === '--') return k + 1 === words.length;
    if (!/^[-+]./.test(word)) return false;
    if (/^[-+][A-Za-z]*[oO]$/.test(word)) k += 1; // `-o NAME`, `+O shopt`
  }
  return true;
}

interface ShellArguments {
  /** The command's name after quote removal (prefixes and assignments skipped). */
  name?: string;
  /** The arguments after the shell's name, after quote removal, redirections left out. */
  args: string[];
  /** Whether the end of the command is the target of an input redirection (`<`, `<<<`). */
  input: boolean;
  /** Whether the end of the command is inside the last argument (no word break before it). */
  inWord: boolean;
}

function shellArguments(command: string): ShellArguments {
  const text = command.replace(/\\\n/g, '');
  const words = splitWords(text);
  const last = words.at(-1);
  const reachesEnd = last !== undefined && last.start + last.raw.length >= text.length && !last.op;
  let k = 0;
  let prefix: string | undefined;
  let envPrefix = false;
  for (; k < words.length; k++) {
    const word = words[k]!;
    const literal = literalText(word.raw);
    if (word.op) k += 1;
    else if (PREFIXES.has(literal)) {
      prefix = literal;
      envPrefix ||= ENV_SETTING.has(literal);
    } else if (prefix !== undefined && literal.startsWith('-')) k += prefixOptionWords(prefix, literal) - 1;
    else if (ASSIGNMENT.test(word.raw) || (envPrefix && ASSIGNMENT.test(literal))) prefix = undefined;
    else break;
  }
  const name = words[k] ? literalText(words[k]!.raw) : undefined;
  const args: string[] = [];
  let input = false;
  let inWord = false;
  for (let j = k + 1; j < words.length; j++) {
    const word = words[j]!;
    if (word.op) {
      const target = words[j + 1];
      const open = target === undefined || (target === last && reachesEnd);
      input = word.raw.startsWith('<') && open;
      j += 1;
    } else {
      args.push(literalText(word.raw));
      input = false;
      inWord = word === last && reachesEnd;
    }
  }
  if (last?.op) input = last.raw.startsWith('<');
  return { ...(name === undefined ? {} : { name }), args, input, inWord };
}

/**
 * The shell a command line starts, when that shell reads its script from standard input (no `-c`, no script file):
 * `bash`, `sh -s`, `bash -e`. `line` is the command's source up to its first newline.
 */
export function shellReadingInput(line: string): string | undefined {
  const { name, args } = shellArguments(`${withoutWrappers(line)} `);
  const shell = name === undefined ? undefined : shellNamed(name);
  if (!shell) return undefined;
  for (const word of args) {
    // `bash -s ARGS…` and `bash /dev/stdin ARGS…` read their script from the input whatever the words after
    if (STDIN_SCRIPT.has(word) || /^-[A-Za-bd-z]*s[A-Za-bd-z]*$/.test(word)) return shell;
    if (!/^[-+]/.test(word) || SCRIPT_FLAG.test(word)) return undefined;
  }
  return shell;
}

/** Script operands that are the shell's own input. */
const STDIN_SCRIPT: ReadonlySet<string> = new Set(['/dev/stdin', '/dev/fd/0', '/proc/self/fd/0', '-']);

/** The shell a command word names, by name or by path (`/bin/bash`, `/usr/bin/env` then `bash`): its name. */
export function shellNamed(word: string): string | undefined {
  if (word.includes('$')) return undefined;
  const base = word.slice(word.lastIndexOf('/') + 1);
  return SHELLS.has(base) ? base : undefined;
}

/**
 * `line` without the programs in front that run the rest as a command with its input (`timeout 5`, `nice -n 5`,
 * `setsid`, `stdbuf -oL`, `ionice -c 3`, `/usr/bin/env`): what reads the input is the command after them.
 */
function withoutWrappers(line: string): string {
  const wrapper =
    /^\s*(?:(?:\S*\/)?(?:timeout(?:\s+-\S+)*(?:\s+(?:-s|-k|--signal|--kill-after)\s+\S+)*\s+\d\S*|nice(?:\s+-n\s*-?\d+|\s+-\S+)*|setsid(?:\s+-\S+)*|stdbuf(?:\s+-\S+)*|ionice(?:\s+-[cnp]\s*\d+|\s+-\S+)*|env))\s+/;
  let rest = line;
  for (let k = 0; k < 8; k++) {
    const match = wrapper.exec(rest);
    if (!match) break;
    rest = rest.slice(match[0].length);
  }
  return rest;
}
