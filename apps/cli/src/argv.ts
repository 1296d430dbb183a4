import { parseArgs } from 'node:util';
import { UsageError } from './io.js';
import { COMMANDS, type CommandSpec, findCommand, GROUPS } from './spec.js';
import { didYouMean } from './suggest.js';

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
    if (first in GROUPS) {
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
    } else {
      throw new UsageError(
        `unknown command "${first}".${didYouMean(first, topLevelNames())} Run \`birdie --help\`.`,
      );
    }
  }
  const command = findCommand(name)!;
  if (rest.includes('--help') || rest.includes('-h'))
    return { kind: 'help', command: name === '' ? undefined : command };
  if (name === '' && (rest.includes('--version') || rest.includes('-v'))) return { kind: 'version' };

  let parsed: { values: Values; positionals: string[] };
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
    }) as { values: Values; positionals: string[] };
  } catch (error) {
    throw new UsageError(explainParseError(error, command), { cause: error });
  }
  const [min, max] = command.positionals;
  if (parsed.positionals.length < min) throw new UsageError(`missing argument. Usage: ${command.usage}`);
  if (parsed.positionals.length > max) {
    const extra = parsed.positionals[max]!;
    const hint = name === '' ? didYouMean(extra, topLevelNames()) : '';
    throw new UsageError(`unexpected argument "${extra}".${hint} Usage: ${command.usage}`);
  }
  return { kind: 'command', command, values: parsed.values, positionals: parsed.positionals };
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
