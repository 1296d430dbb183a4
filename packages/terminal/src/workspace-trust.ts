import { join } from 'node:path';
import type { WorkspaceDeclarations } from '@birdie/registry';
import { skippedLine as skippedFolders, workspaceContents } from '@birdie/runtime/workspace-summary';
import type { ReportIo } from './output.js';
import { type DiagnosticLike, relativeIfInside, reportSkillProblems } from './diagnostics.js';
import type { Style } from './style.js';
import { visible } from './terminal-text.js';

export { workspaceContents };

/** The line naming the untrusted folders skipped; a folder's name is pictured like the files it holds. */
export function skippedLine(untrusted: readonly WorkspaceDeclarations[]): string | undefined {
  const line = skippedFolders(untrusted);
  return line === undefined ? undefined : visible(line);
}

/**
 * Everything a workspace would add, one line per skill, tool and MCP command, then each agent with the model it picks,
 * the tools it pre-approves and what it may reach, for the question and `birdie trust`. All of it is the folder's own
 * text, not yet trusted: each piece is `visible`, so an escape sequence in an entrypoint cannot erase or rewrite the
 * command the user is asked about.
 */
export function describeWorkspace(workspace: WorkspaceDeclarations, cwd: string, style: Style): string[] {
  const lines: string[] = [];
  const path = (file: string) => visible(relativeIfInside(cwd, file));
  for (const skill of workspace.skills) {
    const flags = [
      skill.enabledByDefault ? 'on by default' : 'off by default',
      ...(skill.alwaysInject ? ['always in the prompt'] : []),
    ];
    lines.push(
      `${style('bold', visible(skill.name))} ${style('dim', `(${path(skill.file)}; ${flags.join(', ')})`)}`,
    );
    for (const tool of skill.tools) lines.push(`  tool ${visible(tool.name)}: ${visible(tool.entrypoint)}`);
    for (const run of skill.runs) lines.push(`  runs ${path(join(skill.folder, run.file))}`);
    const mcp = skill.mcp;
    if (mcp && 'command' in mcp) {
      const env = mcp.env ? ` env ${visible(Object.keys(mcp.env).join(', '))}` : '';
      lines.push(`  MCP server: ${visible([mcp.command, ...mcp.args].map(quote).join(' '))}${env}`);
    } else if (mcp) lines.push(`  MCP server: ${visible(mcp.url)}`);
  }
  for (const agent of workspace.agents) {
    lines.push(`${style('bold', `agent ${visible(agent.name)}`)} ${style('dim', `(${path(agent.file)})`)}`);
    lines.push(`  model: ${agent.model === undefined ? 'your default' : visible(agent.model)}`);
    lines.push(
      `  pre-approves: ${agent.approve?.length ? visible(agent.approve.join(', ')) : 'nothing (every approval is asked)'}`,
    );
    const reach = [
      ['skills', agent.skills],
      ['tools', agent.tools],
      ['subagents', agent.subagents],
      ['handoffs', agent.handoffs],
    ] as const;
    for (const [key, names] of reach) if (names?.length) lines.push(`  ${key}: ${visible(names.join(', '))}`);
  }
  // Memory files reach every prompt: the question shows enough of each to recognise it.
  for (const file of workspace.memoryFiles) {
    lines.push(
      `${style('bold', path(file.path))} ${style('dim', `(${file.size} bytes; read into every prompt)`)}`,
    );
    for (const line of file.head) lines.push(`  ${style('dim', '│')} ${visible(line)}`);
  }
  if (workspace.settings)
    lines.push(
      `${style('bold', path(workspace.settings.path))} ${style('dim', "(the project's settings and rules)")}`,
    );
  for (const command of workspace.commands ?? [])
    lines.push(
      `${style('bold', path(command.path))} ${style('dim', '(a slash command: its text is sent as your message)')}`,
    );
  return lines;
}

/**
 * What a command that asks nothing reports of its loaded skills and agents, on `io.stderr`: their problems (`messages`,
 * by default all of them), then the line naming the untrusted folders it skipped.
 */
export function reportLoad(
  io: ReportIo,
  loaded: { messages: readonly DiagnosticLike[]; current(): { untrusted: readonly WorkspaceDeclarations[] } },
  messages = loaded.messages,
): void {
  reportSkillProblems(messages, io);
  const skipped = skippedLine(loaded.current().untrusted);
  if (skipped) io.stderr.write(skipped.endsWith('\n') ? skipped : `${skipped}\n`);
}

function quote(word: string): string {
  return /^[\w@%+=:,./-]+$/.test(word) ? word : `'${word.replace(/'/g, `'\\''`)}'`;
}
