import { listTrust, revokeTrust, trustFolder } from '@birdie/runtime/trust-admin';
import { styler } from '@birdie/terminal/style';
import { describeWorkspace, workspaceContents } from '@birdie/terminal/workspace-trust';
import type { CommandContext } from '../command-context.js';
import { EXIT_OK, UsageError, write } from '../io.js';
import { printList } from '../render/list.js';

/** `birdie trust [DIR]`, `--list`, `--revoke DIR`: the user's answers about project folders, kept in the store. */
export async function trustCommand({ io, values, positionals }: CommandContext): Promise<number> {
  checkOneAction(values, positionals[0]);
  const style = styler(io.stdout, io.env);
  if (values.list === true) {
    return printList(io, values, await listTrust(io), {
      empty: 'No folders answered yet. `birdie trust DIR` trusts one.',
      header: ['FOLDER', 'ANSWER', 'WHEN (UTC)', 'DIGEST'],
      row: (r) => [
        r.dir,
        r.decision,
        r.at.toISOString().slice(0, 16).replace('T', ' '),
        r.digest.slice(0, 12),
      ],
    });
  }
  if (typeof values.revoke === 'string') {
    const { dir, removed } = await revokeTrust(io, values.revoke);
    write(
      io.stdout,
      removed
        ? `Forgot the answer about ${dir}: its project skills, agents and memory files no longer load.`
        : `No answer was recorded for ${dir}.`,
    );
    return EXIT_OK;
  }
  const { dir, declarations } = await trustFolder(io, values, positionals[0] ?? '.');
  if (!declarations) {
    write(
      io.stdout,
      `${dir} has no project skills or agents (.birdie/skills, .agents/skills, .birdie/agents, .agents/agents), memory files (AGENTS.md) or settings (.birdie/settings.json): nothing to trust.`,
    );
    return EXIT_OK;
  }
  write(io.stdout, `Trusted ${dir}. Its ${workspaceContents(declarations)} now load:`);
  for (const line of describeWorkspace(declarations, dir, style)) write(io.stdout, `  ${line}`);
  write(
    io.stdout,
    style('dim', 'If what they declare changes, birdie asks again. `birdie trust --revoke DIR` undoes this.'),
  );
  return EXIT_OK;
}

/**
 * One of listing, revoking and trusting: options that ask for two are refused (each branch used to win silently, so
 * `--list --revoke DIR` listed and revoked nothing), and `--json` goes only with `--list`.
 */
function checkOneAction(values: CommandContext['values'], folder: string | undefined): void {
  const asked = [
    ...(values.list === true ? ['--list'] : []),
    ...(folder !== undefined ? [`a folder to trust (${folder})`] : []),
    ...(values.revoke !== undefined ? ['--revoke'] : []),
  ];
  if (asked.length > 1)
    throw new UsageError(
      `${asked.slice(0, -1).join(', ')} and ${asked.at(-1)} ask for different things: give one. Usage: birdie trust [DIR] | --list [--json] | --revoke DIR`,
    );
  if (values.json === true && values.list !== true)
    throw new UsageError('--json goes with --list (birdie trust --list --json)');
}
