import { COMMANDS, type CommandSpec, GROUPS } from './spec.js';

function optionLines(spec: CommandSpec, more: ReadonlyArray<readonly [string, string]> = []): string[] {
  const rows = Object.entries(spec.options).map(([name, o]) => {
    const flag = `${o.short ? `-${o.short}, ` : '    '}--${name}${o.arg ? ` ${o.arg}` : ''}`;
    return [flag, o.help] as const;
  });
  rows.push(...more);
  const width = Math.max(...rows.map(([f]) => f.length));
  return rows.map(([f, h]) => `  ${f.padEnd(width)}  ${h}`);
}

export function commandHelp(spec: CommandSpec): string {
  const lines = [`${spec.summary}`, '', `Usage: ${spec.usage}`, '', 'Options:', ...optionLines(spec)];
  if (spec.details) lines.push('', spec.details);
  if (spec.examples?.length) lines.push('', 'Examples:', ...spec.examples.map((e) => `  ${e}`));
  return `${lines.join('\n')}\n`;
}

export function mainHelp(version: string): string {
  const rows = COMMANDS.map((c) => [c.name === '' ? 'birdie' : `birdie ${c.name}`, c.summary] as const);
  const width = Math.max(...rows.map(([n]) => n.length));
  const repl = COMMANDS[0]!;
  return [
    `birdie ${version}: an agent whose capabilities are declared in Markdown skills`,
    '',
    'Commands:',
    ...rows.map(([n, s]) => `  ${n.padEnd(width)}  ${s}`),
    '',
    'Options of the interactive session:',
    // -p is not an option of the REPL: argv.ts rewrites it to `run` before any command is parsed.
    ...optionLines(repl, [
      ['-p, --print PROMPT', 'one turn without a terminal, as `birdie run "PROMPT"` (with run\'s options)'],
    ]),
    '',
    'Run `birdie COMMAND --help` for the options of a command.',
    "Provider: LLM_VENDOR, LLM_MODEL and the vendor key variable, --config FILE or LLM_PROVIDER_CONFIG='{…}'.",
    '',
  ].join('\n');
}

/** A group's help: what each subcommand does, and which one runs without a name. */
export function groupHelp(group: string): string {
  const rows = COMMANDS.filter((c) => c.name.startsWith(`${group} `)).map(
    (c) => [`birdie ${c.name}`, c.summary] as const,
  );
  const width = Math.max(...rows.map(([n]) => n.length));
  return [
    `Usage: birdie ${group} COMMAND [options]`,
    '',
    'Commands:',
    ...rows.map(([n, s]) => `  ${n.padEnd(width)}  ${s}`),
    '',
    `\`birdie ${group}\` alone runs \`birdie ${group} ${GROUPS[group]}\`.`,
    `Run \`birdie ${group} COMMAND --help\` for the options of a command.`,
    '',
  ].join('\n');
}
