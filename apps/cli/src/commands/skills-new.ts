import { stat, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { ensureFolder } from '@birdie/runtime/folders';
import { resolveFrom, userSkillsDir } from '@birdie/runtime/paths';
import type { CommandContext } from '../command-context.js';
import { EXIT_OK, UsageError, write } from '../io.js';

const NAME = /^[a-z0-9]+(-[a-z0-9]+)*$/;

export function skillTemplate(name: string): string {
  const tool = name.replace(/-/g, '_');
  return `---
name: ${name}
description: Describe in one sentence what ${name} does and when the agent should use it.
version: 1.0.0
tags: [example]
triggers: [${name}]
enabled_by_default: false
---

# ${name}

Prose here is for the model: when to use the tools below and how to read their output.

## Tools

### ${tool}_echo
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

/** `birdie skills new NAME`: a valid skill to edit, in the user's skills folder unless `--dir` says otherwise. */
export async function skillsNewCommand({ io, values, positionals }: CommandContext): Promise<number> {
  const name = positionals[0]!;
  if (!NAME.test(name) || name.length > 64) {
    throw new UsageError(
      `skill names are lowercase words joined by hyphens (e.g. "git-helper"), got "${name}"`,
    );
  }
  const root = typeof values.dir === 'string' ? resolveFrom(io.cwd, values.dir) : userSkillsDir(io.env);
  const dir = join(root, name);
  if (await stat(dir).catch(() => undefined))
    throw new UsageError(`${dir} already exists; pick another name`);
  await ensureFolder(dir, 0o777);
  const file = join(dir, 'SKILL.md');
  await writeFile(file, skillTemplate(name), { flag: 'wx' });
  write(io.stdout, `Created ${file}`);
  write(
    io.stdout,
    `Next: edit it, then \`birdie skills check ${dir}\` and \`birdie tool ${name.replace(/-/g, '_')}_echo --args '{"message":"hi"}'\`.`,
  );
  write(io.stdout, `It is disabled by default: enable it in a session with /skill enable ${name}.`);
  return EXIT_OK;
}
