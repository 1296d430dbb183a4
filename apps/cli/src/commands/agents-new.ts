import { scaffoldAgent } from '@birdie/runtime/scaffold';
import type { CommandContext } from '../command-context.js';
import { EXIT_OK, write } from '../io.js';

/** `birdie agents new NAME`: a valid agent file to edit, in the user's agents folder unless `--dir` says otherwise. */
export async function agentsNewCommand({ io, values, positionals }: CommandContext): Promise<number> {
  const dir = typeof values.dir === 'string' ? values.dir : undefined;
  const { file } = await scaffoldAgent(io, positionals[0]!, dir);
  write(io.stdout, `Created ${file}`);
  write(io.stdout, `Next: edit it, then \`birdie agents check ${file}\` and \`birdie agents list\`.`);
  return EXIT_OK;
}
