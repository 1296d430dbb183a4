import { stat } from 'node:fs/promises';
import { join } from 'node:path';
import { isAgentMessage } from '@birdie/runtime/agents';
import { allowedToolsWarnings } from '@birdie/runtime/allowed-tools-check';
import { resolveFrom } from '@birdie/runtime/paths';
import { openTrustedRegistry } from '@birdie/runtime/skills';
import type { CommandContext } from '../command-context.js';
import { write } from '../io.js';
import type { DiagnosticLike } from '../render/diagnostics.js';
import { skippedLine } from '../render/workspace-trust.js';
import { missingPath, printCheckReport } from './check-report.js';

/**
 * `birdie skills check [DIR…]`: each DIR may be a skills folder, one skill's folder or a SKILL.md file. Without DIR,
 * every folder birdie loads is checked together, so clashes between layers show up too.
 */
export async function skillsCheckCommand({ io, values, positionals }: CommandContext): Promise<number> {
  const messages: DiagnosticLike[] = [];
  let skillCount = 0;
  const strict = values.strict === true;
  const targets = positionals.map((p) => resolveFrom(io.cwd, p));
  if (targets.length === 0 && strict) {
    // The standard is for skills people publish: the folders the user loads, not the ones birdie ships.
    const registry = await openTrustedRegistry(io, values);
    for (const { layer, path } of registry.directories)
      if (layer !== 'bundled' && (await stat(path).catch(() => undefined))?.isDirectory()) targets.push(path);
  }
  if (targets.length === 0) {
    const registry = await openTrustedRegistry(io, values);
    skillCount = registry.current().skills.length;
    // Agent files have their own command (`agents check`).
    messages.push(...registry.messages.filter((m) => !isAgentMessage(m, registry.agentDirectories)));
    messages.push(...(await allowedToolsWarnings(registry.current().skills)));
    // MCP prompts a user or project command hides (each MCP server is started to list its prompts).
    const { shadowedMcpPrompts } = await import('@birdie/runtime/mcp-prompts-check');
    messages.push(...(await shadowedMcpPrompts(io, values, registry)));
    // Their files were read and checked (their problems are above), but they do not load until trusted.
    const skipped = skippedLine(registry.current().untrusted);
    if (skipped) write(io.stderr, skipped);
  } else {
    const [parser, { checkSkillTools }] = await Promise.all([
      import('@birdie/skill-parser'),
      import('@birdie/registry'),
    ]);
    // What the registry would refuse when loading (unsafe templates, unknown placeholders) is reported here too.
    const toolProblems = (skills: readonly import('@birdie/skill-parser').Skill[]) =>
      skills.flatMap((skill) => checkSkillTools(skill).messages);
    for (const target of targets) {
      const info = await stat(target).catch(() => undefined);
      if (!info) {
        messages.push(missingPath(target));
        continue;
      }
      const skillFile = info.isFile() ? target : await findSkillFile(target);
      if (skillFile) {
        const result = await parser.loadSkillFile(skillFile, { strict });
        if (result.skill) skillCount++;
        const skills = result.skill ? [result.skill] : [];
        messages.push(...result.messages, ...toolProblems(skills), ...(await allowedToolsWarnings(skills)));
      } else {
        const result = await parser.discoverSkills(target, { strict });
        skillCount += result.skills.length;
        messages.push(
          ...result.messages,
          ...toolProblems(result.skills),
          ...(await allowedToolsWarnings(result.skills)),
        );
      }
    }
  }
  return printCheckReport(io, messages, skillCount, 'skill');
}

async function findSkillFile(dir: string): Promise<string | undefined> {
  for (const name of ['SKILL.md', 'SKILL.MD', 'skill.md']) {
    const file = join(dir, name);
    const info = await stat(file).catch(() => undefined);
    if (info?.isFile()) return file;
  }
  return undefined;
}
