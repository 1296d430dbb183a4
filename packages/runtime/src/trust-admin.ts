import { statSync } from 'node:fs';
import type { WorkspaceDeclarations } from '@birdie/registry';
import type { TrustRecord } from '@birdie/store';
import { UsageError } from './errors.js';
import type { Flags } from './flags.js';
import type { RuntimeIo } from './io.js';
import { resolveFrom } from './paths.js';
import { openRegistry } from './skills.js';
import { withStore } from './store-command.js';
import { realFolder } from './trust.js';

// The user's answers about project folders (`birdie trust`), kept in the store: each call opens the store, does its
// one thing, and closes it. What a folder declares is read the way every start reads it, trusting nothing.

/** Every folder the user answered about, with the answer and the digest it was given for. */
export async function listTrust(io: RuntimeIo): Promise<TrustRecord[]> {
  return withStore(io, false, (store) => store.trust.list());
}

/** Forgets the answer about `dir` (relative to `io.cwd`); `removed` is false when there was none. */
export async function revokeTrust(io: RuntimeIo, dir: string): Promise<{ dir: string; removed: boolean }> {
  const real = realFolder(resolveFrom(io.cwd, dir));
  return withStore(io, true, async (store) => ({ dir: real, removed: await store.trust.revoke(real) }));
}

/** What a user typing `birdie trust list` (as `birdie sessions list`) meant: the option that does it. */
const OPTION_FOR_WORD: Record<string, string> = {
  list: '; to list the trusted folders: birdie trust --list',
  ls: '; to list the trusted folders: birdie trust --list',
  revoke: '; to stop trusting a folder: birdie trust --revoke DIR',
  remove: '; to stop trusting a folder: birdie trust --revoke DIR',
};

/**
 * Trusts the folder `dir` (relative to `io.cwd`) for what it declares now: its project skills, agents, memory files
 * and settings, loaded untrusted to see exactly that. `declarations` is undefined (and nothing is recorded) when the
 * folder declares nothing.
 */
export async function trustFolder(
  io: RuntimeIo,
  values: Flags,
  dir: string,
): Promise<{ dir: string; declarations?: WorkspaceDeclarations }> {
  const target = resolveFrom(io.cwd, dir);
  if (!statSync(target, { throwIfNoEntry: false })?.isDirectory())
    throw new UsageError(`${target} is not a folder${OPTION_FOR_WORD[dir] ?? ''}`);
  const real = realFolder(target);
  return withStore(io, true, async (store) => {
    let found: WorkspaceDeclarations | undefined;
    await openRegistry(
      io,
      { ...values, cwd: real, 'skills-dir': undefined, 'agents-dir': undefined },
      (workspace) => {
        if (workspace.path === real) found = workspace;
        return false;
      },
    );
    if (!found) return { dir: real };
    await store.trust.set(real, { digest: found.digest, decision: 'trusted' });
    return { dir: real, declarations: found };
  });
}
