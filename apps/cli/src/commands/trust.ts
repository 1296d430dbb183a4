import { listTrust, revokeTrust, trustFolder } from '@birdie/runtime/trust-admin';
import type { CommandContext } from '../command-context.js';
import { EXIT_OK, write } from '../io.js';
import { styler, table } from '../render/style.js';
import { describeWorkspace, workspaceContents } from '../render/workspace-trust.js';

/** `birdie trust [DIR]`, `--list`, `--revoke DIR`: the user's answers about project folders, kept in the store. */
export async function trustCommand({ io, values, positionals }: CommandContext): Promise<number> {
  const style = styler(io.stdout, io.env);
  if (values.list === true) {
    const records = await listTrust(io);
    if (values.json) {
      for (const r of records) write(io.stdout, JSON.stringify(r));
      return EXIT_OK;
    }
    if (records.length === 0) {
      write(io.stdout, 'No folders answered yet. `birdie trust DIR` trusts one.');
      return EXIT_OK;
    }
    io.stdout.write(
      table(
        records.map((r) => [
          r.dir,
          r.decision,
          r.at.toISOString().slice(0, 16).replace('T', ' '),
          r.digest.slice(0, 12),
        ]),
        ['FOLDER', 'ANSWER', 'WHEN (UTC)', 'DIGEST'].map((h) => style('bold', h)),
      ),
    );
    return EXIT_OK;
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
