import { scaffoldAgent } from '@birdie/runtime/scaffold';
import type { CommandContext } from '../command-context.js';
import { EXIT_OK, write } from '../io.js';
import { shellWord } from './skills-new.js';

/**
 * `birdie agents new NAME`: a valid agent file to edit, in the user's agents folder unless `--dir` says otherwise. For
 * a folder birdie does not load by itself, the hint passes `--agents-dir`.
 */
export async function agentsNewCommand({ io, values, positionals }: CommandContext): Promise<number> {
  const dir = typeof values.dir === 'string' ? values.dir : undefined;
  const { file, folder, loaded } = await scaffoldAgent(io, values, positionals[0]!, dir);
  const load = loaded ? '' : ` --agents-dir ${shellWord(folder)}`;
  write(io.stdout, `Created ${file}`);
  write(
    io.stdout,
    `Next: edit it, then \`birdie agents check ${shellWord(file)}\` and \`birdie agents list${load}\`.`,
  );
  return EXIT_OK;
}
