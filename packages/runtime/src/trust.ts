import { realpathSync } from 'node:fs';
import type { RegistrySnapshot, TrustDecision, WorkspaceDeclarations } from '@birdie/registry';
import type { Store, TrustRecord } from '@birdie/store';
import type { Flags } from './flags.js';

/**
 * The real path of a folder (trust is keyed by it, so a symlinked checkout is the same workspace). The system's
 * realpath(3): one call, where Node's own walks the path with an `lstat` per component (every served turn asks).
 */
export function realFolder(dir: string): string {
  try {
    return realpathSync.native(dir);
  } catch {
    return dir;
  }
}

/** The user's stored trust answers by folder, read once: the registry decides synchronously, on load and reload. */
export type TrustRecords = Map<string, TrustRecord>;

export async function readTrust(store: Pick<Store, 'trust'>): Promise<TrustRecords> {
  return new Map((await store.trust.list()).map((record) => [record.dir, record]));
}

/**
 * The user's stored answers decide: a workspace is trusted when its record says `trusted` for exactly the
 * declarations it has now (a new tool, entrypoint or MCP command changes the digest and asks again). `--trust-workspace`
 * trusts the working folder for this one run without storing anything.
 */
export function trustDecision(records: TrustRecords, oneRun?: string): TrustDecision {
  return (workspace) => {
    if (oneRun !== undefined && workspace.path === oneRun) return true;
    const record = records.get(workspace.path);
    return record?.decision === 'trusted' && record.digest === workspace.digest;
  };
}

/** The working folder, when `--trust-workspace` was given. */
export function trustedForOneRun(values: Flags, cwd: string): string | undefined {
  return values['trust-workspace'] === true ? realFolder(cwd) : undefined;
}

/**
 * Whether a folder is trusted for what it holds now: a stored answer the registry did not list as untrusted (a new
 * AGENTS.md changes its digest), or `--trust-workspace` for the working folder `cwd`.
 */
export function folderTrusted(
  values: Flags,
  cwd: string,
  trust: TrustRecords,
  snapshot: Pick<RegistrySnapshot, 'untrusted'>,
  folder: string = cwd,
): boolean {
  const real = realFolder(folder);
  return (
    trustedForOneRun(values, cwd) === real ||
    (trust.get(real)?.decision === 'trusted' && !snapshot.untrusted.some((w) => w.path === real))
  );
}

/** Whether the user already answered "no" to exactly these declarations (then they are not asked again). */
export function refusedBefore(records: TrustRecords, workspace: WorkspaceDeclarations): boolean {
  const record = records.get(workspace.path);
  return record?.decision === 'refused' && record.digest === workspace.digest;
}
