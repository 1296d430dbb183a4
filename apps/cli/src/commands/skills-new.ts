import { scaffoldSkill } from '@birdie/runtime/scaffold';
import type { CommandContext } from '../command-context.js';
import { EXIT_OK, write } from '../io.js';

/** `birdie skills new NAME`: a valid skill to edit, in the user's skills folder unless `--dir` says otherwise. */
export async function skillsNewCommand({ io, values, positionals }: CommandContext): Promise<number> {
  const name = positionals[0]!;
  const { dir, file } = await scaffoldSkill(
    io,
    name,
    typeof values.dir === 'string' ? values.dir : undefined,
  );
  write(io.stdout, `Created ${file}`);
  write(
    io.stdout,
    `Next: edit it, then \`birdie skills check ${dir}\` and \`birdie tool ${name.replace(/-/g, '_')}_echo --args '{"message":"hi"}'\`.`,
  );
  write(io.stdout, `It is disabled by default: enable it in a session with /skill enable ${name}.`);
  return EXIT_OK;
}
