import { createHash } from 'node:crypto';
import { dirname } from 'node:path';
import type { Skill } from '@birdie/skill-parser';
import type { ScannedDirectory } from './layering.js';
import type { DeclaredSkill, SkillDirectory, TrustDecision, WorkspaceDeclarations } from './types.js';

/** The workspace a project folder belongs to: given, or the folder two levels up (`<workspace>/.birdie/skills`). */
export function workspaceOf(directory: SkillDirectory): string {
  return directory.workspace ?? dirname(dirname(directory.path));
}

/** What one skill declares that can run or reach the prompt: the part a user is asked to trust. */
export function declaredSkill(skill: Skill): DeclaredSkill {
  const server = skill.mcpServer;
  return {
    name: skill.name,
    file: skill.file,
    tools: skill.tools.map((tool) => ({ name: tool.name, entrypoint: tool.entrypoint })),
    ...(server
      ? {
          mcp:
            server.transport === 'stdio'
              ? {
                  command: server.command,
                  args: [...server.args],
                  ...(server.env ? { env: { ...server.env } } : {}),
                  ...(server.cwd ? { cwd: server.cwd } : {}),
                }
              : { url: server.url },
        }
      : {}),
    alwaysInject: skill.alwaysInject,
    enabledByDefault: skill.enabledByDefault,
  };
}

/**
 * SHA-256 over a workspace's declarations in a canonical order: adding a skill or a tool, changing an entrypoint,
 * an MCP command, argument, environment or URL, or turning on `always_inject` gives a new digest (and a new question).
 * Prose is not part of it: editing a skill's text does not ask again.
 */
export function declarationsDigest(skills: readonly DeclaredSkill[]): string {
  const canonical = [...skills]
    .map((s) => ({ ...s, file: undefined, tools: [...s.tools].sort((a, b) => cmp(a.name, b.name)) }))
    .sort((a, b) => cmp(a.name, b.name));
  return createHash('sha256').update(JSON.stringify(canonical, sortedKeys)).digest('hex');
}

function cmp(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

function sortedKeys(_key: string, value: unknown): unknown {
  if (value === null || typeof value !== 'object' || Array.isArray(value)) return value;
  return Object.fromEntries(Object.entries(value).sort(([a], [b]) => cmp(a, b)));
}

/**
 * Splits the scanned folders into what loads and what waits for the user's trust. Project folders are grouped by
 * workspace; a workspace with skills loads only when `trust` says so for its exact declarations. Everything else
 * (bundled, user, explicit folders) is the user's own choice and always loads.
 */
export function applyTrust(
  scanned: readonly ScannedDirectory[],
  trust: TrustDecision,
): { trusted: ScannedDirectory[]; untrusted: WorkspaceDeclarations[] } {
  const byWorkspace = new Map<string, ScannedDirectory[]>();
  for (const entry of scanned) {
    if (entry.directory.layer !== 'project' || entry.skills.length === 0) continue;
    const key = workspaceOf(entry.directory);
    byWorkspace.set(key, [...(byWorkspace.get(key) ?? []), entry]);
  }
  const refused = new Set<ScannedDirectory>();
  const untrusted: WorkspaceDeclarations[] = [];
  for (const [path, entries] of byWorkspace) {
    const skills = entries.flatMap((entry) => entry.skills.map(declaredSkill));
    const workspace: WorkspaceDeclarations = {
      path,
      folders: entries.map((entry) => entry.directory.path),
      digest: declarationsDigest(skills),
      skills,
    };
    if (trust(workspace)) continue;
    for (const entry of entries) refused.add(entry);
    untrusted.push(workspace);
  }
  return {
    trusted: scanned.map((entry) =>
      refused.has(entry) ? { directory: entry.directory, skills: [] } : entry,
    ),
    untrusted,
  };
}
