import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { ensureFolder } from '@birdie/runtime/folders';
import { resolveFrom, userAgentsDir } from '@birdie/runtime/paths';
import type { CommandContext } from '../command-context.js';
import { EXIT_OK, UsageError, write } from '../io.js';

const NAME = /^[a-z0-9]+(-[a-z0-9]+)*$/;

/** A valid agent to edit: every optional key is there, commented out, with what it takes. */
export function agentTemplate(name: string): string {
  return `---
name: ${name}
description: Describe in one sentence what ${name} does and when to hand work to it.
# model: openai:gpt-4o-mini     # vendor:model, or a tier name from your config; default: your model
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

/** `birdie agents new NAME`: a valid agent file to edit, in the user's agents folder unless `--dir` says otherwise. */
export async function agentsNewCommand({ io, values, positionals }: CommandContext): Promise<number> {
  const name = positionals[0]!;
  if (!NAME.test(name) || name.length > 64) {
    throw new UsageError(
      `agent names are lowercase words joined by hyphens (e.g. "code-reviewer"), got "${name}"`,
    );
  }
  const dir = typeof values.dir === 'string' ? resolveFrom(io.cwd, values.dir) : userAgentsDir(io.env);
  await ensureFolder(dir, 0o777);
  const file = join(dir, `${name}.md`);
  try {
    await writeFile(file, agentTemplate(name), { flag: 'wx' });
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'EEXIST')
      throw new UsageError(`${file} already exists; pick another name`);
    throw error;
  }
  write(io.stdout, `Created ${file}`);
  write(io.stdout, `Next: edit it, then \`birdie agents check ${file}\` and \`birdie agents list\`.`);
  return EXIT_OK;
}
