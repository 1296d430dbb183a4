import type { WorkspaceDeclarations } from '@birdie/registry';
import type { Runtime } from './runtime.js';
import { refusedBefore } from './trust.js';

/**
 * The untrusted workspaces a front end should ask about: those the user has not answered about for what they
 * declare now, and has not put off (`putOff`: the digests answered "not now" in this process).
 */
export function unansweredWorkspaces(rt: Runtime, putOff: ReadonlySet<string>): WorkspaceDeclarations[] {
  return rt.registry.current().untrusted.filter((w) => !refusedBefore(rt.trust, w) && !putOff.has(w.digest));
}

/**
 * Records the user's answer about a workspace, with the digest of what it declares now (a change asks again): in the
 * store, and in this runtime's answers. After a `trusted`, `rt.registry.reload()` loads what it declares.
 */
export async function answerTrust(
  rt: Runtime,
  workspace: WorkspaceDeclarations,
  decision: 'trusted' | 'refused',
): Promise<void> {
  await rt.store.trust.set(workspace.path, { digest: workspace.digest, decision });
  rt.trust.set(workspace.path, { dir: workspace.path, digest: workspace.digest, decision, at: new Date() });
}

/** What trusting a workspace lets in: code that runs, agents that pre-approve, text that reaches every prompt. */
export function trustRisks(workspace: WorkspaceDeclarations): string[] {
  return [
    ...(workspace.skills.length || workspace.agents.length
      ? ['their tools and MCP servers can run commands on this machine']
      : []),
    ...(workspace.agents.length ? ['agents run the tools they pre-approve without asking'] : []),
    ...(workspace.memoryFiles.length ? ['memory files go into every prompt'] : []),
    ...(workspace.settings ? ["the project's settings apply"] : []),
  ];
}
