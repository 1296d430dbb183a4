import { readdir } from 'node:fs/promises';
import { basename, join } from 'node:path';
import type { McpPromptInfo } from '@birdie/graph';
import { birdieHome } from './paths.js';
import { readRegularText } from './regular-file.js';

/** Where a custom command comes from, in decreasing precedence after the built-in ones. */
export type CommandLayer = 'user' | 'project' | 'mcp';

/** A custom slash command: `NAME.md`, its frontmatter `description` and `agent`, its body the message template. */
export interface CustomCommand {
  name: string;
  description?: string;
  /** The agent that answers the message (`agent:` in the frontmatter). */
  agent?: string;
  /** The message sent; `$ARGUMENTS` stands for what follows the command. */
  template: string;
  layer: CommandLayer;
  /** The command's file; for an MCP prompt, which server offers it. */
  file: string;
  /** Set for an MCP prompt (`layer: 'mcp'`): running it gets the prompt's messages (`prompts/get`) as the turn. */
  prompt?: McpPromptInfo;
}

/** A command hidden by one of higher precedence with the same name, for `/help` to report. */
export interface CommandClash {
  name: string;
  hidden: CustomCommand;
  /** `built-in`, or the command that wins. */
  by: 'built-in' | CustomCommand;
}

/** A name a user can type after `/`: letters, digits, `-`, `_`, `:` (namespaces), starting with a letter or digit. */
const COMMAND_NAME = /^[A-Za-z0-9][A-Za-z0-9_:-]{0,63}$/;
const FRONTMATTER = /^---\r?\n([\s\S]*?)\r?\n---[ \t]*(?:\r?\n|$)/;

/** One command file's text as a command; undefined for a name a user could not type. */
export async function parseCommand(
  file: string,
  text: string,
  layer: CommandLayer,
): Promise<CustomCommand | undefined> {
  const name = basename(file, '.md');
  if (!COMMAND_NAME.test(name)) return undefined;
  const body = text.replace(/^\uFEFF/, '');
  const match = FRONTMATTER.exec(body);
  let front: Record<string, unknown> = {};
  if (match) {
    const { parse } = await import('yaml');
    try {
      const parsed: unknown = parse(match[1]!);
      if (parsed && typeof parsed === 'object' && !Array.isArray(parsed))
        front = parsed as Record<string, unknown>;
    } catch {
      // A frontmatter that is not YAML leaves the command without a description or agent; its body still works.
    }
  }
  const template = (match ? body.slice(match[0].length) : body).replace(/\r\n/g, '\n').trim();
  return {
    name,
    ...(typeof front.description === 'string' ? { description: front.description.trim() } : {}),
    ...(typeof front.agent === 'string' && front.agent.trim() !== '' ? { agent: front.agent.trim() } : {}),
    template,
    layer,
    file,
  };
}

async function readFolder(dir: string, layer: CommandLayer): Promise<CustomCommand[]> {
  const names = await readdir(dir).catch(() => [] as string[]);
  const commands: CustomCommand[] = [];
  for (const name of names.filter((n) => n.endsWith('.md')).sort()) {
    const file = join(dir, name);
    const text = await readRegularText(file);
    const command = text === undefined ? undefined : await parseCommand(file, text, layer);
    if (command) commands.push(command);
  }
  return commands;
}

export interface CommandSources {
  env: NodeJS.ProcessEnv;
  /** The working folder; its `.birdie/commands` is read only when `projectTrusted`. */
  cwd: string;
  /** The folder is trusted for what it holds now (the trust digest covers every command file's bytes). */
  projectTrusted: boolean;
  /** The built-in command names, which always win. */
  builtins: readonly string[];
  /** MCP prompts offered as commands (the MCP issue), lowest precedence. */
  mcp?: readonly CustomCommand[];
}

/**
 * The custom slash commands in force: `~/.birdie/commands/*.md`, then the project's `.birdie/commands/*.md` once the
 * folder is trusted, then MCP prompts. On a clash of names the built-in wins, then user > project > MCP; each loser
 * is in `clashes`.
 */
export async function loadCustomCommands(
  sources: CommandSources,
): Promise<{ commands: CustomCommand[]; clashes: CommandClash[] }> {
  const layers = [
    await readFolder(join(birdieHome(sources.env), 'commands'), 'user'),
    sources.projectTrusted ? await readFolder(join(sources.cwd, '.birdie', 'commands'), 'project') : [],
    [...(sources.mcp ?? [])],
  ];
  const builtins = new Set(sources.builtins.map((name) => name.toLowerCase()));
  const byName = new Map<string, CustomCommand>();
  const clashes: CommandClash[] = [];
  for (const command of layers.flat()) {
    const key = command.name.toLowerCase();
    if (builtins.has(key)) {
      clashes.push({ name: command.name, hidden: command, by: 'built-in' });
      continue;
    }
    const winner = byName.get(key);
    if (winner) {
      clashes.push({ name: command.name, hidden: command, by: winner });
      continue;
    }
    byName.set(key, command);
  }
  return { commands: [...byName.values()], clashes };
}

/** The message a command sends: its template with `$ARGUMENTS` replaced (appended when it has no `$ARGUMENTS`). */
export function expandCommand(command: CustomCommand, args: string): string {
  if (command.template.includes('$ARGUMENTS')) return command.template.replaceAll('$ARGUMENTS', args);
  return args === '' ? command.template : `${command.template}\n\n${args}`;
}
