import { checkAgentFiles } from '@birdie/runtime/check-files';
import type { CommandContext } from '../command-context.js';
import { printCheckReport } from './check-report.js';

/** `birdie agents check [DIR|FILE…]`, in `skills check`'s format: the agent files given, or every one birdie loads. */
export async function agentsCheckCommand({ io, values, positionals }: CommandContext): Promise<number> {
  return printCheckReport(io, await checkAgentFiles(io, values, positionals), 'agent');
}
