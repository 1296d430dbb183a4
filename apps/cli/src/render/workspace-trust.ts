import { join } from 'node:path';
import type { WorkspaceDeclarations } from '@birdie/registry';
import { type Io, write } from '../io.js';
import { type DiagnosticLike, relativeIfInside, reportSkillProblems } from './diagnostics.js';
import type { Style } from './style.js';

const count = (n: number, word: string) => `${n} ${word}${n === 1 ? '' : 's'}`;

/**
 * Everything a workspace would add, one line per skill, tool and MCP command, then each agent with the model it picks,
 * the tools it pre-approves and what it may reach, for the question and `birdie trust`.
 */
export function describeWorkspace(workspace: WorkspaceDeclarations, cwd: string, style: Style): string[] {
  const lines: string[] = [];
  for (const skill of workspace.skills) {
    const flags = [
      skill.enabledByDefault ? 'on by default' : 'off by default',
      ...(skill.alwaysInject ? ['always in the prompt'] : []),
    ];
    lines.push(
      `${style('bold', skill.name)} ${style('dim', `(${relativeIfInside(cwd, skill.file)}; ${flags.join(', ')})`)}`,
    );
    for (const tool of skill.tools) lines.push(`  tool ${tool.name}: ${tool.entrypoint}`);
    for (const run of skill.runs) lines.push(`  runs ${relativeIfInside(cwd, join(skill.folder, run.file))}`);
    const mcp = skill.mcp;
    if (mcp && 'command' in mcp) {
      const env = mcp.env ? ` env ${Object.keys(mcp.env).join(', ')}` : '';
      lines.push(`  MCP server: ${[mcp.command, ...mcp.args].map(quote).join(' ')}${env}`);
    } else if (mcp) lines.push(`  MCP server: ${mcp.url}`);
  }
  for (const agent of workspace.agents) {
    lines.push(
      `${style('bold', `agent ${agent.name}`)} ${style('dim', `(${relativeIfInside(cwd, agent.file)})`)}`,
    );
    lines.push(`  model: ${agent.model ?? 'your default'}`);
    lines.push(
      `  pre-approves: ${agent.approve?.length ? agent.approve.join(', ') : 'nothing (every approval is asked)'}`,
    );
    const reach = [
      ['skills', agent.skills],
      ['tools', agent.tools],
      ['subagents', agent.subagents],
      ['handoffs', agent.handoffs],
    ] as const;
    for (const [key, names] of reach) if (names?.length) lines.push(`  ${key}: ${names.join(', ')}`);
  }
  // Memory files reach every prompt: the question shows enough of each to recognise it.
  for (const file of workspace.memoryFiles) {
    lines.push(
      `${style('bold', relativeIfInside(cwd, file.path))} ${style('dim', `(${file.size} bytes; read into every prompt)`)}`,
    );
    for (const line of file.head) lines.push(`  ${style('dim', '│')} ${line}`);
  }
  if (workspace.settings)
    lines.push(
      `${style('bold', relativeIfInside(cwd, workspace.settings.path))} ${style('dim', "(the project's settings and rules)")}`,
    );
  for (const command of workspace.commands ?? [])
    lines.push(
      `${style('bold', relativeIfInside(cwd, command.path))} ${style('dim', '(a slash command: its text is sent as your message)')}`,
    );
  return lines;
}

/** "project skills", "memory files", "project skills, agents and memory files"…: what a workspace holds. */
export function workspaceContents(workspace: WorkspaceDeclarations): string {
  const parts = [
    ...(workspace.skills.length ? ['skills'] : []),
    ...(workspace.agents.length ? ['agents'] : []),
  ];
  const project = parts.length ? [`project ${parts.join(' and ')}`] : [];
  const all = [
    ...project,
    ...(workspace.memoryFiles.length ? ['memory files'] : []),
    ...(workspace.settings ? ['settings'] : []),
    ...(workspace.commands?.length ? ['commands'] : []),
  ];
  return all.length > 1 ? `${all.slice(0, -1).join(', ')} and ${all.at(-1)}` : (all[0] ?? 'project files');
}

/** The one line `birdie run` (and other non-interactive commands) print for skipped workspaces. */
export function skippedLine(untrusted: readonly WorkspaceDeclarations[]): string | undefined {
  if (untrusted.length === 0) return undefined;
  const skills = untrusted.reduce((n, w) => n + w.skills.length, 0);
  const agents = untrusted.reduce((n, w) => n + w.agents.length, 0);
  const memory = untrusted.reduce((n, w) => n + w.memoryFiles.length, 0);
  const settings = untrusted.filter((w) => w.settings).length;
  const commands = untrusted.reduce((n, w) => n + (w.commands?.length ?? 0), 0);
  const parts = [
    ...(skills > 0 ? [count(skills, 'skill')] : []),
    ...(agents > 0 ? [count(agents, 'agent')] : []),
    ...(memory > 0 ? [count(memory, 'memory file')] : []),
    ...(settings > 0 ? ['the settings file'] : []),
    ...(commands > 0 ? [count(commands, 'command')] : []),
  ];
  const what = parts.length > 1 ? `${parts.slice(0, -1).join(', ')} and ${parts.at(-1)}` : (parts[0] ?? '');
  const where = untrusted.map((w) => w.path).join(', ');
  return `birdie: skipped ${what} of the untrusted folder ${where}: run \`birdie trust\` there to use them (or --trust-workspace for one run)`;
}

/**
 * What a command that asks nothing reports of its loaded skills and agents, on `io.stderr`: their problems (`messages`,
 * by default all of them), then the line naming the untrusted folders it skipped.
 */
export function reportLoad(
  io: Io,
  loaded: { messages: readonly DiagnosticLike[]; current(): { untrusted: readonly WorkspaceDeclarations[] } },
  messages = loaded.messages,
): void {
  reportSkillProblems(messages, io);
  const skipped = skippedLine(loaded.current().untrusted);
  if (skipped) write(io.stderr, skipped);
}

function quote(word: string): string {
  return /^[\w@%+=:,./-]+$/.test(word) ? word : `'${word.replace(/'/g, `'\\''`)}'`;
}
