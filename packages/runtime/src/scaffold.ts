import { stat, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { UsageError } from './errors.js';
import type { Flags } from './flags.js';
import { ensureFolder } from './folders.js';
import type { RuntimeIo } from './io.js';
import { resolveFrom, userAgentsDir, userSkillsDir } from './paths.js';
import { agentDirectories, openTrustedRegistry, skillDirectories } from './skills.js';

// New skills and agents from a template that passes `birdie skills check` / `birdie agents check` as it is.

const NAME = /^[a-z0-9]+(-[a-z0-9]+)*$/;
const MAX_NAME = 64;

/** A usage error unless `name` is lowercase words joined by hyphens, at most 64 characters (the Agent Skills rule). */
export function checkNewName(kind: 'skill' | 'agent', name: string, example: string): void {
  if (!NAME.test(name))
    throw new UsageError(
      `${kind} names are lowercase words joined by hyphens (e.g. "${example}"), got "${name}"`,
    );
  if (name.length > MAX_NAME)
    throw new UsageError(
      `${kind} names are at most ${MAX_NAME} characters (the Agent Skills rule); this one has ${name.length}: "${name}"`,
    );
}

/** The scaffold's example tool: `<name>_echo`, the name cut so the whole stays within 64 characters (the tool-name rule). */
export function scaffoldToolName(name: string): string {
  const suffix = '_echo';
  return `${name
    .replace(/-/g, '_')
    .slice(0, 64 - suffix.length)
    .replace(/_+$/, '')}${suffix}`;
}

/** A valid skill to edit: one `bash:` tool that echoes its argument, disabled by default. */
function skillTemplate(name: string): string {
  return `---
name: ${name}
description: Describe in one sentence what ${name} does and when the agent should use it.
version: 1.0.0
tags: [example]
triggers: [${name}]
enabled_by_default: false
---

# ${name}

What the model reads of this skill: the description above and each tool's description below. This text is for
people reading the skill; to send it to the model on every turn as well (when to use the tools, how to read their
output), add \`always_inject: true\` to the frontmatter.

## Tools

### ${scaffoldToolName(name)}
description: Echo a message back (replace with the real command).
entrypoint: bash:printf '%s\\n' {message}
schema:
  type: object
  properties:
    message:
      type: string
      description: The text to echo
  required: [message]
`;
}

/** A valid agent to edit: every optional key is there, commented out, with what it takes. */
function agentTemplate(name: string): string {
  return `---
name: ${name}
description: Describe in one sentence what ${name} does and when to hand work to it.
# model: openai:gpt-4o-mini     # vendor:model, or a tier: fast, default, strong; default: your model
# skills: [filesystem]          # skills it may use (never more than the session allows); default: the session's
# tools: [read_file, list_dir]  # only these tools of those skills
# approve: [read_file]          # tools it may run without asking you
# subagents: [researcher]       # agents it may delegate a task to
# handoffs: [reviewer]          # agents it may hand the conversation to
# progressive: true             # its skills' tools appear once it loads the skill
max_turns: 20
# timeout: 600                  # seconds
---

You are ${name}. Say here who the agent is, what it does, and how it answers: this text is its system prompt.
`;
}

/** Where `scaffoldSkill` wrote the skill, and whether birdie loads that folder without `--skills-dir`. */
export interface ScaffoldedSkill {
  /** The skill's folder. */
  dir: string;
  file: string;
  /** The skills folder it is in. */
  root: string;
  /** `root` is one of the folders birdie loads by itself (bundled, user, project); else it needs `--skills-dir root`. */
  loaded: boolean;
  /** The example tool's name (`scaffoldToolName`). */
  tool: string;
}

/**
 * Writes a new skill `NAME/SKILL.md` in `dir` (relative to the working folder), else in the user's skills folder.
 * Usage errors: a name that is not lowercase words joined by hyphens, a folder that exists, a name a loaded skill has
 * (the new one would hide it, as `birdie mcp add` refuses too).
 */
export async function scaffoldSkill(
  io: RuntimeIo,
  flags: Flags,
  name: string,
  dir?: string,
): Promise<ScaffoldedSkill> {
  checkNewName('skill', name, 'git-helper');
  const root = dir !== undefined ? resolveFrom(io.cwd, dir) : userSkillsDir(io.env);
  const folder = join(root, name);
  if (await stat(folder).catch(() => undefined))
    throw new UsageError(`${folder} already exists; pick another name`);
  const snapshot = (await openTrustedRegistry(io, flags)).current();
  const clash = snapshot.getSkill(name);
  if (clash)
    throw new UsageError(
      `a skill named "${name}" already exists (${snapshot.layerOf(clash.name)?.layer ?? 'loaded'}: ${clash.file}); pick another name`,
    );
  await ensureFolder(folder, 0o777);
  const file = join(folder, 'SKILL.md');
  await writeFile(file, skillTemplate(name), { flag: 'wx' });
  const loaded = skillDirectories(io, flags).some((d) => d.path === root);
  return { dir: folder, file, root, loaded, tool: scaffoldToolName(name) };
}

/**
 * Writes a new agent `NAME.md` in `dir` (relative to the working folder), else in the user's agents folder. Usage
 * errors: a name that is not lowercase words joined by hyphens, a file that exists, a name a loaded agent has (the new
 * one would hide it). `loaded`: birdie loads the folder by itself; else it needs `--agents-dir folder`.
 */
export async function scaffoldAgent(
  io: RuntimeIo,
  flags: Flags,
  name: string,
  dir?: string,
): Promise<{ file: string; folder: string; loaded: boolean }> {
  checkNewName('agent', name, 'code-reviewer');
  const folder = dir !== undefined ? resolveFrom(io.cwd, dir) : userAgentsDir(io.env);
  const file = join(folder, `${name}.md`);
  if (await stat(file).catch(() => undefined))
    throw new UsageError(`${file} already exists; pick another name`);
  const snapshot = (await openTrustedRegistry(io, flags)).current();
  const clash = snapshot.getAgent(name);
  if (clash)
    throw new UsageError(
      `an agent named "${name}" already exists (${snapshot.agentLayerOf(clash.name)?.layer ?? 'loaded'}: ${clash.file}); pick another name`,
    );
  await ensureFolder(folder, 0o777);
  try {
    await writeFile(file, agentTemplate(name), { flag: 'wx' });
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'EEXIST')
      throw new UsageError(`${file} already exists; pick another name`);
    throw error;
  }
  return { file, folder, loaded: agentDirectories(io, flags).some((d) => d.path === folder) };
}
