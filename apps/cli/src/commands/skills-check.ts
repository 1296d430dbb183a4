import { checkSkillFiles } from '@birdie/runtime/check-files';
import type { CommandContext } from '../command-context.js';
import { printCheckReport } from './check-report.js';

/** `birdie skills check [DIR…]`: the diagnostics of the skill folders given, or of every folder birdie loads. */
export async function skillsCheckCommand({ io, values, positionals }: CommandContext): Promise<number> {
  const check = await checkSkillFiles(io, values, positionals, { strict: values.strict === true });
  return printCheckReport(io, check, 'skill');
}
