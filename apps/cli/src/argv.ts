import { parseArgs } from 'node:util';
import { UsageError } from './io.js';
import { COMMANDS, type CommandSpec, findCommand, GROUPS } from './spec.js';
import { didYouMean, editDistance } from './suggest.js';

export type Values = Record<string, string | boolean | string[] | undefined>;

export type Parsed =
  | { kind: 'version' }
  | { kind: 'help'; command: CommandSpec | undefined }
  /** `birdie sessions --help`, `birdie help sessions`: every subcommand of the group. */
  | { kind: 'group-help'; group: string }
  | { kind: 'command'; command: CommandSpec; values: Values; positionals: string[] };

function topLevelNames(): string[] {
  const names = new Set<string>();
  for (const c of COMMANDS) if (c.name) names.add(c.name.split(' ')[0]!);
  names.add('help');
  return [...names];
}

/** Splits argv into a command of the table and its parsed options; every mistake is a `UsageError` (exit 2). */
export function parseArgv(argv: string[]): Parsed {
  const print = printPrompt(argv);
  if (print) return parseArgv(print);
  let rest = argv;
  let name = '';
  const first = argv[0];
  if (first !== undefined && !first.startsWith('-')) {
    if (first === 'help') {
      const target = argv.slice(1).join(' ');
      if (target in GROUPS) return { kind: 'group-help', group: target };
      const spec =
        target === ''
          ? undefined
          : (findCommand(target) ?? findCommand(`${target} ${GROUPS[target] ?? ''}`.trim()));
      if (target !== '' && !spec)
        throw new UsageError(`unknown command "${target}".${didYouMean(target, topLevelNames())}`);
      return { kind: 'help', command: spec };
    }
    if (!(first in GROUPS) && argv[1] !== undefined && findCommand(`${first} ${argv[1]}`)) {
      // A command with sub-commands of its own besides itself (`logs`, `logs show`).
      name = `${first} ${argv[1]}`;
      rest = argv.slice(2);
    } else if (first in GROUPS) {
      const sub = argv[1];
      if (sub === undefined || sub.startsWith('-')) {
        if (argv.includes('--help') || argv.includes('-h')) return { kind: 'group-help', group: first };
        name = `${first} ${GROUPS[first]}`;
        rest = argv.slice(1);
      } else {
        name = `${first} ${sub}`;
        rest = argv.slice(2);
        if (!findCommand(name)) {
          const subs = COMMANDS.filter((c) => c.name.startsWith(`${first} `)).map(
            (c) => c.name.split(' ')[1]!,
          );
          throw new UsageError(
            `unknown command "${first} ${sub}".${didYouMean(sub, subs)} Try: ${subs.join(', ')}.`,
          );
        }
      }
    } else if (findCommand(first)) {
      name = first;
      rest = argv.slice(1);
    } else if (!looksLikeCommand(first)) {
      // `birdie "fix the tests"`: the REPL with a first message.
      rest = [...argv.slice(1), '--', first];
    } else {
      throw new UsageError(
        `unknown command "${first}".${didYouMean(first, topLevelNames())} To send it as a message: birdie -- "${first}".`,
      );
    }
  }
  const command = findCommand(name)!;
  if (rest.includes('--help') || rest.includes('-h'))
    return { kind: 'help', command: name === '' ? undefined : command };
  if (name === '' && (rest.includes('--version') || rest.includes('-v'))) return { kind: 'version' };

  let parsed: { values: Values; positionals: string[]; tokens: Array<{ kind: string; index: number }> };
  try {
    parsed = parseArgs({
      args: rest,
      options: Object.fromEntries(
        Object.entries(command.options).map(([k, o]) => [
          k,
          { type: o.type, ...(o.short ? { short: o.short } : {}), ...(o.multiple ? { multiple: true } : {}) },
        ]),
      ),
      allowPositionals: true,
      strict: true,
      tokens: true,
    }) as typeof parsed;
  } catch (error) {
    throw new UsageError(explainParseError(error, command), { cause: error });
  }
  if (name === '') refuseCommandAsMessage(parsed.tokens, rest);
  const [min, max] = command.positionals;
  if (parsed.positionals.length < min) throw new UsageError(`missing argument. Usage: ${command.usage}`);
  if (parsed.positionals.length > max) {
    const extra = parsed.positionals[max]!;
    const hint = name === '' ? didYouMean(extra, topLevelNames()) : '';
    throw new UsageError(`unexpected argument "${extra}".${hint} Usage: ${command.usage}`);
  }
  return { kind: 'command', command, values: parsed.values, positionals: parsed.positionals };
}

/**
 * `birdie --enable x run` (options before the word): the word is a command's name, or a near miss of one, as when
 * it comes first; it becomes the REPL's first message only after `--`, never by accident.
 */
function refuseCommandAsMessage(
  tokens: ReadonlyArray<{ kind: string; index: number }>,
  args: string[],
): void {
  const first = tokens.find((t) => t.kind === 'positional' || t.kind === 'option-terminator');
  if (first?.kind !== 'positional') return;
  const word = args[first.index]!;
  if (topLevelNames().includes(word))
    throw new UsageError(
      `"${word}" is a command: put it first (birdie ${word} …), or to send it as a message, put -- before it.`,
    );
  if (looksLikeCommand(word))
    throw new UsageError(
      `unknown command "${word}".${didYouMean(word, topLevelNames())} To send it as a message, put -- before it.`,
    );
}

function explainParseError(error: unknown, command: CommandSpec): string {
  const message = error instanceof Error ? error.message : String(error);
  const label = command.name === '' ? 'birdie' : `birdie ${command.name}`;
  const unknown = /Unknown option '(-{1,2})([^']+)'/.exec(message);
  if (unknown) {
    const hint = didYouMean(unknown[2]!, Object.keys(command.options)).replace(/"([^"]+)"/, '"--$1"');
    return `unknown option "${unknown[1]}${unknown[2]}".${hint} Run \`${label} --help\`.`;
  }
  return `${message.split('\n')[0]} Run \`${label} --help\`.`;
}

/**
 * `birdie -p "<prompt>" [options]` is `birdie run [options] "<prompt>"`, as in other agent CLIs: the argv rewritten,
 * or undefined when there is no `-p`/`--print` before a command word.
 */
function printPrompt(argv: string[]): string[] | undefined {
  const at = argv.findIndex((a) => a === '-p' || a === '--print');
  if (at === -1 || argv.slice(0, at).some((a) => !a.startsWith('-'))) return undefined;
  const prompt = argv[at + 1];
  if (prompt === undefined) throw new UsageError('-p needs a prompt: birdie -p "<prompt>"');
  const options = [...argv.slice(0, at), ...argv.slice(at + 2)];
  return ['run', ...options, ...(prompt.startsWith('-') && prompt !== '-' ? ['--'] : []), prompt];
}

/**
 * A word the user more likely meant as a command than as a message: one edit from a command name (`rnu`), or the
 * start of one (`sess`). `hello` is a message, though two edits from `help`.
 */
function looksLikeCommand(word: string): boolean {
  if (/\s/.test(word)) return false;
  const lower = word.toLowerCase();
  return topLevelNames().some(
    (name) => editDistance(lower, name) <= 1 || (lower.length >= 3 && name.startsWith(lower)),
  );
}
