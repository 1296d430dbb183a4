import type { WorkspaceDeclarations } from '@birdie/registry';

// What project folders hold, in words: for the question that asks to trust one, for `birdie trust`, and for the line
// a command that asks nothing prints about the untrusted folders it skipped.

/** `a`, `a and b`, `a, b and c`. */
function inWords(parts: readonly string[]): string {
  return parts.length > 1 ? `${parts.slice(0, -1).join(', ')} and ${parts.at(-1)}` : (parts[0] ?? '');
}

const count = (n: number, word: string) => `${n} ${word}${n === 1 ? '' : 's'}`;

/** "project skills", "memory files", "project skills, agents and memory files"…: what a workspace holds. */
export function workspaceContents(workspace: WorkspaceDeclarations): string {
  const parts = [
    ...(workspace.skills.length ? ['skills'] : []),
    ...(workspace.agents.length ? ['agents'] : []),
  ];
  const all = [
    ...(parts.length ? [`project ${parts.join(' and ')}`] : []),
    ...(workspace.memoryFiles.length ? ['memory files'] : []),
    ...(workspace.settings ? ['settings'] : []),
    ...(workspace.commands?.length ? ['commands'] : []),
  ];
  return all.length ? inWords(all) : 'project files';
}

/**
 * The one line a command that asks nothing (`birdie run`, `skills list`, `mcp`, …) prints for the untrusted folders
 * it skipped: how many skills, agents, memory files, settings files and commands, where, and how to trust them; and
 * that a settings file's ask and deny rules apply all the same.
 */
export function skippedLine(untrusted: readonly WorkspaceDeclarations[]): string | undefined {
  if (untrusted.length === 0) return undefined;
  const total = (of: (w: WorkspaceDeclarations) => number) => untrusted.reduce((n, w) => n + of(w), 0);
  const skills = total((w) => w.skills.length);
  const agents = total((w) => w.agents.length);
  const memory = total((w) => w.memoryFiles.length);
  const settings = total((w) => (w.settings ? 1 : 0));
  const commands = total((w) => w.commands?.length ?? 0);
  const what = inWords([
    ...(skills > 0 ? [count(skills, 'skill')] : []),
    ...(agents > 0 ? [count(agents, 'agent')] : []),
    ...(memory > 0 ? [count(memory, 'memory file')] : []),
    ...(settings > 0 ? ['the settings file'] : []),
    ...(commands > 0 ? [count(commands, 'command')] : []),
  ]);
  const where = untrusted.map((w) => w.path).join(', ');
  // Only the settings file's allow rules are skipped (permission-rules.ts): its ask and deny rules only narrow what
  // runs, so they apply untrusted. Saying the file was skipped and no more would tell a script its denials are off.
  const rules =
    settings > 0
      ? "; the settings file's ask and deny rules apply all the same (they only narrow what runs), its allow rules only once trusted"
      : '';
  return `birdie: skipped ${what} of the untrusted folder ${where}: run \`birdie trust\` there to use them (or --trust-workspace for one run)${rules}`;
}
