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
  const { name, args } = shellArguments(`${line} `);
  if (!name || !SHELLS.has(name)) return undefined;
  return args.every((w) => /^[-+]/.test(w) && !SCRIPT_FLAG.test(w)) ? name : undefined;
}
