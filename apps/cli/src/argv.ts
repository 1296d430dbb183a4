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

  const args = withNegativeNumbers(rest, command);
  let parsed: { values: Values; positionals: string[]; tokens: Array<{ kind: string; index: number }> };
  try {
    parsed = parseArgs({
      args: args.args,
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
    const misplaced = name === '' ? optionOfCommandAfter(error, argv) : undefined;
    throw new UsageError(misplaced ?? explainParseError(error, command, args.args), { cause: error });
  }
  parsed.positionals = parsed.tokens
    .filter((t) => t.kind === 'positional')
    .map((t) => args.original(t.index));
  if (name === '')
    refuseCommandAsMessage(
      parsed.tokens,
      args.args.map((_, i) => args.original(i)),
    );
  const [min, max] = command.positionals;
  if (parsed.positionals.length < min) throw new UsageError(`missing argument. Usage: ${command.usage}`);
  if (parsed.positionals.length > max) {
    const extra = parsed.positionals[max]!;
    // `birdie sessions --json list`: the group's default command took the options, and the subcommand came after.
    const group = name.split(' ')[0]!;
    if (group in GROUPS && parsed.positionals.length === 1 && findCommand(`${group} ${extra}`))
      throw new UsageError(
        `"${extra}" is a command of birdie ${group}: put it right after "${group}" (birdie ${group} ${extra} …), options after it.`,
      );
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

/** A negative number (`-1`, `-0.5`, `-.5`): never one of birdie's options, always a value the user typed. */
const NEGATIVE_NUMBER = /^-(\d+(\.\d*)?|\.\d+)$/;

/**
 * node's parseArgs refuses `--wait -1` ("argument is ambiguous") and reads a `-5` argument as an unknown option. A
 * negative number is a value, wherever it stands, so that the command checks it and words its own error: after an
 * option that takes a value it is joined to it (`--wait=-1`, `-n-1`); else it is an argument, passed to parseArgs as
 * a stand-in and given back by `original`. A short option written with "=" (`-n=5`) gets the value after it.
 */
function withNegativeNumbers(
  rest: string[],
  command: CommandSpec,
): { args: string[]; original(index: number): string } {
  const takesValue = (arg: string): boolean => {
    const long = /^--([^=]+)$/.exec(arg)?.[1];
    if (long !== undefined) return command.options[long]?.type === 'string';
    const short = /^-([^-])$/.exec(arg)?.[1];
    if (short === undefined) return false;
    return Object.values(command.options).some((o) => o.short === short && o.type === 'string');
  };
  const args: string[] = [];
  const numbers = new Map<number, string>();
  for (let i = 0; i < rest.length; i++) {
    const arg = rest[i]!;
    if (arg === '--') {
      args.push(...rest.slice(i));
      break;
    }
    const next = rest[i + 1];
    const shortWithEquals = /^(-[^-])=(.+)$/s.exec(arg);
    if (shortWithEquals && takesValue(shortWithEquals[1]!)) {
      // `-n=5`: node reads the value as "=5"; the user wrote it as `--wait=5` is written.
      args.push(`${shortWithEquals[1]}${shortWithEquals[2]}`);
    } else if (next !== undefined && NEGATIVE_NUMBER.test(next) && takesValue(arg)) {
      args.push(arg.startsWith('--') ? `${arg}=${next}` : `${arg}${next}`);
      i++;
    } else if (NEGATIVE_NUMBER.test(arg)) {
      numbers.set(args.length, arg);
      args.push('0');
    } else args.push(arg);
  }
  return { args, original: (index) => numbers.get(index) ?? args[index]! };
}

/**
 * `birdie --json sessions list`: an option the REPL does not take, put before a command that does. Undefined when
 * the words after it name no such command.
 */
function optionOfCommandAfter(error: unknown, argv: readonly string[]): string | undefined {
  const unknown = /Unknown option '(-{1,2})([^']+)'/.exec(
    error instanceof Error ? error.message : String(error),
  );
  if (!unknown) return undefined;
  const [, dashes, option] = unknown as unknown as [string, string, string];
  const words = argv.filter((arg) => !arg.startsWith('-'));
  const [first, second] = words;
  if (first === undefined) return undefined;
  const command =
    (second !== undefined ? findCommand(`${first} ${second}`) : undefined) ??
    findCommand(first) ??
    (first in GROUPS ? findCommand(`${first} ${GROUPS[first]}`) : undefined);
  if (!command?.name) return undefined;
  const takes = Object.entries(command.options).some(([long, o]) =>
    dashes === '--' ? long === option : o.short === option,
  );
  if (!takes) return undefined;
  const written = `${dashes}${option}`;
  return `unknown option "${written}". It is an option of \`birdie ${command.name}\`: put it after the command (birdie ${command.name} ${written}).`;
}

function explainParseError(error: unknown, command: CommandSpec, args: readonly string[]): string {
  const message = error instanceof Error ? error.message : String(error);
  const label = command.name === '' ? 'birdie' : `birdie ${command.name}`;
  const help = `Run \`${label} --help\`.`;
  const unknown = /Unknown option '(-{1,2})([^']+)'/.exec(message);
  if (unknown) {
    // A word of several letters after one dash (`-hello`) is read as options bundled: the unknown one is a letter of
    // it, most likely a message that starts with "-".
    const bundle =
      unknown[1] === '-'
        ? args.find((arg) => /^-[^-]./.test(arg) && arg.slice(1).includes(unknown[2]!))
        : undefined;
    if (bundle !== undefined)
      return `unknown option "-${unknown[2]}" (in ${JSON.stringify(bundle)}). To send a message that starts with "-", put -- before it: ${label} -- ${JSON.stringify(bundle)}. ${help}`;
    const hint = didYouMean(unknown[2]!, Object.keys(command.options)).replace(/"([^"]+)"/, '"--$1"');
    return `unknown option "${unknown[1]}${unknown[2]}".${hint} ${help}`;
  }
  // `--wait --json`: the value left out, or one that starts with "-" (a negative number never gets here).
  const ambiguous = /^Option '(-{1,2})([^']+)' argument is ambiguous/.exec(message);
  if (ambiguous) {
    const option = `${ambiguous[1]}${ambiguous[2]}`;
    const at = args.findIndex((arg, i) => arg === option && args[i + 1]?.startsWith('-'));
    const given = at === -1 ? undefined : args[at + 1];
    const inline = ambiguous[1] === '--' ? `${option}=VALUE` : `${option}VALUE`;
    const what = given === undefined ? '' : `, and ${JSON.stringify(given)} is an option`;
    return `${option} needs a value${what}: to give a value that starts with "-", write ${inline}. ${help}`;
  }
  // `--session-id` last on the line: node's words ("Option '--session-id <value>' argument missing") said in ours.
  const missing = /^Option '(?:-\w, )?(-{1,2}[^ ']+)(?: <value>)?' argument missing/.exec(message);
  if (missing) {
    const option = missing[1]!;
    const arg = command.options[option.replace(/^-+/, '')]?.arg;
    return `${option} needs a value${arg ? ` (${arg})` : ''}. ${help}`;
  }
  return `${sentence(message.split('\n')[0]!)} ${help}`;
}

/** The text as a sentence: with its full stop, so that the hint after it starts a new one. */
function sentence(text: string): string {
  return /[.!?]$/.test(text.trim()) ? text.trim() : `${text.trim()}.`;
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
