import { scaffoldSkill } from '@birdie/runtime/scaffold';
import type { CommandContext } from '../command-context.js';
import { EXIT_OK, write } from '../io.js';

/**
 * `birdie skills new NAME`: a valid skill to edit, in the user's skills folder unless `--dir` says otherwise. The
 * hints are commands that work as printed: for a folder birdie does not load by itself they pass `--skills-dir`.
 */
export async function skillsNewCommand({ io, values, positionals }: CommandContext): Promise<number> {
  const name = positionals[0]!;
  const { dir, file, root, loaded, tool } = await scaffoldSkill(
    io,
    values,
    name,
    typeof values.dir === 'string' ? values.dir : undefined,
  );
  const load = loaded ? '' : ` --skills-dir ${shellWord(root)}`;
  write(io.stdout, `Created ${file}`);
  write(
    io.stdout,
    `Next: edit it, then \`birdie skills check ${shellWord(dir)}\` and \`birdie tool ${tool}${load} --args '{"message":"hi"}'\`.`,
  );
  if (loaded)
    write(io.stdout, `It is disabled by default: enable it in a session with /skill enable ${name}.`);
  else
    write(
      io.stdout,
      `${root} is not a folder birdie loads by itself: pass --skills-dir with it, e.g. \`birdie run${load} --enable ${name} …\`, or \`birdie${load}\` and then /skill enable ${name} (it is disabled by default).`,
    );
  return EXIT_OK;
}

/** A path as one shell word. */
export function shellWord(word: string): string {
  return /^[\w@%+=:,./-]+$/.test(word) ? word : `'${word.replace(/'/g, `'\\''`)}'`;
}
