import { statSync } from 'node:fs';
import type { WorkspaceDeclarations } from '@birdie/registry';
import { resolveFrom } from '@birdie/runtime/paths';
import { openUserStore, requireWritable } from '@birdie/runtime/runtime';
import { openRegistry } from '@birdie/runtime/skills';
import { realFolder } from '@birdie/runtime/trust';
import type { CommandContext } from '../command-context.js';
import { EXIT_OK, UsageError, write } from '../io.js';
import { styler, table } from '../render/style.js';
import { describeWorkspace, workspaceContents } from '../render/workspace-trust.js';

/** `birdie trust [DIR]`, `--list`, `--revoke DIR`: the user's answers about project folders, kept in the store. */
export async function trustCommand({ io, values, positionals }: CommandContext): Promise<number> {
  const style = styler(io.stdout, io.env);
  const store = await openUserStore(io);
  try {
    if (values.list === true) {
      const records = await store.trust.list();
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
      requireWritable(store);
      const dir = realFolder(resolveFrom(io.cwd, values.revoke));
      const removed = await store.trust.revoke(dir);
      write(
        io.stdout,
        removed
          ? `Forgot the answer about ${dir}: its project skills, agents and memory files no longer load.`
          : `No answer was recorded for ${dir}.`,
      );
      return EXIT_OK;
    }
    const target = resolveFrom(io.cwd, positionals[0] ?? '.');
    if (!statSync(target, { throwIfNoEntry: false })?.isDirectory())
      throw new UsageError(`${target} is not a folder`);
    const dir = realFolder(target);
    requireWritable(store);
    // Load the folder as a workspace, trusting nothing, to see exactly what it declares now.
    let found: WorkspaceDeclarations | undefined;
    await openRegistry(
      io,
      { ...values, cwd: dir, 'skills-dir': undefined, 'agents-dir': undefined },
      (workspace) => {
        if (workspace.path === dir) found = workspace;
        return false;
      },
    );
    if (!found) {
      write(
        io.stdout,
        `${dir} has no project skills or agents (.birdie/skills, .agents/skills, .birdie/agents, .agents/agents), memory files (AGENTS.md) or settings (.birdie/settings.json): nothing to trust.`,
      );
      return EXIT_OK;
    }
    await store.trust.set(dir, { digest: found.digest, decision: 'trusted' });
    write(io.stdout, `Trusted ${dir}. Its ${workspaceContents(found)} now load:`);
    for (const line of describeWorkspace(found, dir, style)) write(io.stdout, `  ${line}`);
    write(
      io.stdout,
      style(
        'dim',
        'If what they declare changes, birdie asks again. `birdie trust --revoke DIR` undoes this.',
      ),
    );
    return EXIT_OK;
  } finally {
    await store.close();
  }
}
