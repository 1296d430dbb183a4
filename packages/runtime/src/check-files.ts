import { stat } from 'node:fs/promises';
import { join, sep } from 'node:path';
import type { LoadedRegistry, WorkspaceDeclarations } from '@birdie/registry';
import type { AgentDefinition, Skill } from '@birdie/skill-parser';
import { isAgentMessage } from './agents.js';
import { allowedToolsWarnings } from './allowed-tools-check.js';
import type { DiagnosticLike } from './diagnostics.js';
import type { Flags } from './flags.js';
import type { RuntimeIo } from './io.js';
import { missingModuleFiles } from './module-files-check.js';
import { resolveFrom } from './paths.js';
import { BUILTIN_TOOLS, openTrustedRegistry } from './skills.js';

/** What a check found: every diagnostic (in no particular order), how many skills or agents loaded, and the project
 * folders whose files were read and checked but do not load until trusted (only when the loaded folders are checked). */
export interface FileCheck {
  messages: DiagnosticLike[];
  loaded: number;
  untrusted: readonly WorkspaceDeclarations[];
}

/** A path given to a check that does not exist, reported like any other problem. */
export function missingPath(file: string): DiagnosticLike {
  return {
    file,
    line: 1,
    column: 1,
    reason: 'no such file or folder',
    ruleId: 'missing-path',
    fatal: true,
    source: 'birdie',
  };
}

/**
 * `birdie skills check [DIR…]`: each path (relative to `io.cwd`) may be a skills folder, one skill's folder or a
 * SKILL.md file. Without paths, every folder birdie loads is checked together, so clashes between layers show up
 * too, with the MCP prompts a command hides; with `strict` (the Agent Skills standard as errors, for skills people
 * publish), the folders the user loads but not the bundled one.
 */
export async function checkSkillFiles(
  io: RuntimeIo,
  flags: Flags,
  paths: readonly string[],
  options: { strict?: boolean } = {},
): Promise<FileCheck> {
  const strict = options.strict === true;
  const targets = paths.map((p) => resolveFrom(io.cwd, p));
  // `--strict` without paths: the folders birdie loads, each checked alone, and the layering as the registry made it.
  let layered: LoadedRegistry | undefined;
  if (targets.length === 0 && strict) {
    layered = await openTrustedRegistry(io, flags);
    for (const { layer, path } of layered.directories)
      if (layer !== 'bundled' && (await stat(path).catch(() => undefined))?.isDirectory()) targets.push(path);
  }
  if (targets.length === 0) {
    const registry = await openTrustedRegistry(io, flags);
    const { skills, untrusted } = registry.current();
    // Agent files have their own check (`checkAgentFiles`).
    const messages: DiagnosticLike[] = registry.messages.filter(
      (m) => !isAgentMessage(m, registry.agentDirectories),
    );
    messages.push(...(await allowedToolsWarnings(skills)), ...(await missingModuleFiles(skills)));
    // MCP prompts a user or project command hides (each MCP server is started to list its prompts).
    const { shadowedMcpPrompts } = await import('./mcp-prompts-check.js');
    messages.push(...(await shadowedMcpPrompts(io, flags, registry)));
    return { messages, loaded: skills.length, untrusted };
  }
  const [parser, { checkSkillTools, REGISTRY_RULES, snapshotFromSkills }] = await Promise.all([
    import('@birdie/skill-parser'),
    import('@birdie/registry'),
  ]);
  // What the registry would refuse when loading (unsafe templates, unknown placeholders) is reported here too.
  const problems = async (skills: readonly Skill[]) => [
    ...skills.flatMap((skill) => checkSkillTools(skill).messages),
    ...(await allowedToolsWarnings(skills)),
    ...(await missingModuleFiles(skills)),
  ];
  const messages: DiagnosticLike[] = [];
  const checked: Skill[] = [];
  const sameName: ReadonlySet<string> = new Set([
    REGISTRY_RULES.duplicateSkillName,
    REGISTRY_RULES.skillNameCaseCollision,
  ]);
  let loaded = 0;
  for (const target of targets) {
    const info = await stat(target).catch(() => undefined);
    if (!info) {
      messages.push(missingPath(target));
      continue;
    }
    const skillFile = info.isFile() ? target : await findSkillFile(target);
    const result = skillFile
      ? await parser.loadSkillFile(skillFile, { strict }).then((r) => ({
          messages: r.messages,
          skills: r.skill ? [r.skill] : [],
        }))
      : await parser.discoverSkills(target, { strict });
    // Two skills of one name in this folder: loading it keeps one and refuses the other, with a warning said here too.
    const folder = skillFile
      ? undefined
      : snapshotFromSkills(result.skills, { directory: { path: target, layer: 'explicit' } });
    // The skills as parsed, not the snapshot's copies: those lost the tools it refused (a tool name two skills
    // declare), and the check of all the skills together below must still find that clash.
    const keptFiles = folder ? new Set(folder.skills.map((s) => s.file)) : undefined;
    const kept = keptFiles ? result.skills.filter((s) => keptFiles.has(s.file)) : result.skills;
    loaded += kept.length;
    checked.push(...kept);
    messages.push(...result.messages, ...(await problems(result.skills)));
    if (folder) messages.push(...folder.messages.filter((m) => sameName.has(m.ruleId ?? '')));
    // A folder with no skill file of its own: it, or its sub-folders, may be meant as skills that never load.
    if (!skillFile) {
      const { skillFolderProblems, skillsFolderProblems } = await import('./unloadable-skills.js');
      messages.push(...(await skillFolderProblems(target)), ...(await skillsFolderProblems(target)));
    }
  }
  if (layered) {
    // Which skill wins a name is the layers' order (bundled → user → project → --skills-dir), not the order the
    // folders were read in here: the registry's own clash and override findings, for the files checked.
    const layering: ReadonlySet<string> = new Set([
      REGISTRY_RULES.toolNameClash,
      REGISTRY_RULES.skillOverridden,
    ]);
    const checkedFile = (file: string | undefined) =>
      file !== undefined && targets.some((dir) => file === dir || file.startsWith(`${dir}${sep}`));
    messages.push(...layered.messages.filter((m) => layering.has(m.ruleId ?? '') && checkedFile(m.file)));
    return { messages, loaded, untrusted: [] };
  }
  // Two of these skills declaring one tool name: loaded together, one of the two would be refused.
  const together = snapshotFromSkills(checked).messages;
  messages.push(...together.filter((m) => m.ruleId === REGISTRY_RULES.toolNameClash));
  return { messages, loaded, untrusted: [] };
}

async function findSkillFile(dir: string): Promise<string | undefined> {
  for (const name of ['SKILL.md', 'SKILL.MD', 'skill.md']) {
    const file = join(dir, name);
    const info = await stat(file).catch(() => undefined);
    if (info?.isFile()) return file;
  }
  return undefined;
}

/**
 * `birdie agents check [DIR|FILE…]`. Without paths, every agents folder birdie loads, checked together (layering,
 * and each agent against the skills and agents that load). A DIR is an agents folder, a FILE one agent; their agents
 * are checked against what birdie loads too, so an unknown skill shows up at once.
 */
export async function checkAgentFiles(
  io: RuntimeIo,
  flags: Flags,
  paths: readonly string[],
): Promise<FileCheck> {
  const registry = await openTrustedRegistry(io, flags);
  const snapshot = registry.current();
  if (paths.length === 0)
    return {
      messages: registry.messages.filter((m) => isAgentMessage(m, registry.agentDirectories)),
      loaded: snapshot.agents.length,
      untrusted: snapshot.untrusted,
    };
  const [parser, { checkAgents }] = await Promise.all([
    import('@birdie/skill-parser'),
    import('@birdie/registry'),
  ]);
  const messages: DiagnosticLike[] = [];
  const agents: AgentDefinition[] = [];
  for (const target of paths.map((p) => resolveFrom(io.cwd, p))) {
    const info = await stat(target).catch(() => undefined);
    if (!info) {
      messages.push(missingPath(target));
      continue;
    }
    const result = info.isFile()
      ? await parser
          .loadAgentFile(target)
          .then((r) => ({ messages: r.messages, agents: r.agent ? [r.agent] : [] }))
      : await parser.discoverAgents(target);
    agents.push(...result.agents);
    messages.push(...result.messages);
  }
  messages.push(
    ...checkAgents({
      skills: snapshot.skills,
      agents,
      knownAgents: snapshot.agents.map((agent) => agent.name),
      builtinTools: BUILTIN_TOOLS,
    }),
  );
  return { messages, loaded: agents.length, untrusted: [] };
}
