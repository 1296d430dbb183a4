import { stat } from 'node:fs/promises';
import { dirname, isAbsolute, join, relative, resolve, sep } from 'node:path';
import { moduleTargetOf } from '@birdie/entrypoints';
import type { Skill, SkillTool } from '@birdie/skill-parser';
import type { DiagnosticLike } from './diagnostics.js';

// `skills check`'s look for the module a `node:` or `python:` tool names: only whether its file is in the skill folder
// (a `stat`, nothing imported or run), so a typo or a file not yet written shows before the first call fails.

/** Whether `path` is a regular file (following links; a link out of the folder is the entrypoint's own check). */
async function isFile(path: string): Promise<boolean> {
  return (await stat(path).catch(() => undefined))?.isFile() === true;
}

/** What is missing for a `node:PATH#export` entrypoint, or undefined when its file is there. */
async function nodeProblem(folder: string, modulePath: string): Promise<string | undefined> {
  if (isAbsolute(modulePath)) return undefined; // the entrypoint's own check reports it
  const file = resolve(folder, modulePath);
  const rel = relative(folder, file);
  if (rel.startsWith(`..${sep}`) || rel === '..') return undefined; // likewise (path-escape)
  return (await isFile(file)) ? undefined : `no file ${modulePath} in the skill folder`;
}

/** What is missing for a `python:MODULE.function` entrypoint (its module a file or a package of the skill folder). */
async function pythonProblem(folder: string, moduleName: string): Promise<string | undefined> {
  const path = join(folder, ...moduleName.split('.'));
  if ((await isFile(`${path}.py`)) || (await isFile(join(path, '__init__.py')))) return undefined;
  const shown = moduleName.split('.').join('/');
  return `no module ${moduleName} in the skill folder (${shown}.py or ${shown}/__init__.py); a tool runs only its skill's own Python code`;
}

/** Malformed targets and other schemes are the entrypoint's own checks to report. */
async function toolProblem(folder: string, tool: SkillTool): Promise<string | undefined> {
  const target = moduleTargetOf(tool.entrypoint);
  if (target?.scheme === 'node') return nodeProblem(folder, target.modulePath);
  if (target?.scheme === 'python') return pythonProblem(folder, target.moduleName);
  return undefined;
}

/** An error for each `node:`/`python:` tool whose module is not in its skill's folder: every call of it would fail. */
export async function missingModuleFiles(skills: readonly Skill[]): Promise<DiagnosticLike[]> {
  const messages: DiagnosticLike[] = [];
  for (const skill of skills) {
    const folder = dirname(skill.file);
    for (const tool of skill.tools ?? []) {
      const problem = await toolProblem(folder, tool);
      if (problem === undefined) continue;
      const at = tool.entrypointPosition ?? { line: tool.line, column: 1 };
      messages.push({
        file: skill.file,
        line: at.line,
        column: at.column,
        reason: `Tool \`${tool.name}\`: ${tool.entrypoint.trim().split('#')[0]}: ${problem}`,
        source: 'birdie',
        ruleId: 'module-not-found',
        fatal: true,
      });
    }
  }
  return messages;
}
