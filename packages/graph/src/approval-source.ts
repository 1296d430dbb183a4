import { createHash } from 'node:crypto';
import { stableStringify } from './ids.js';
import type { DeclaredTool } from './tool.js';
import type { AgentRegistrySnapshot, SessionApproval } from './types.js';

const digests = new WeakMap<object, string>();

/**
 * What a session approval of `tool` is bound to: a digest of the skill as it was read from its file (the file's path,
 * its tools with their entrypoints, schemas and settings, its MCP server, its text), `builtin` for birdie's own
 * tools. An edited or replaced file gives another digest, so an approval given to the old one no longer holds.
 * Undefined when the tool's skill is not in the snapshot (it cannot be bound, so it cannot be approved for good).
 */
export function approvalSource(
  tool: Pick<DeclaredTool, 'skill'> & { kind?: DeclaredTool['kind'] },
  snapshot: AgentRegistrySnapshot,
): string | undefined {
  if (!tool.skill) return tool.kind === 'builtin' ? 'builtin' : undefined;
  const skill = snapshot.getSkill(tool.skill);
  if (!skill) return undefined;
  let digest = digests.get(skill);
  if (digest === undefined) {
    digest = createHash('sha256').update(stableStringify(skill)).digest('hex');
    digests.set(skill, digest);
  }
  return `sha256:${digest}`;
}

/**
 * The approvals that hold in a thread: its own, and for a subagent's thread those of the threads above it (given in
 * the turn context), so a tool the user approved for the session does not ask again inside a `task`.
 */
export function approvalsInForce(
  inherited: readonly SessionApproval[] | undefined,
  own: readonly SessionApproval[] | undefined,
): SessionApproval[] {
  return [...(inherited ?? []), ...(own ?? [])];
}

/** Whether the session approved this whole tool (not a command pattern of it), as declared by the same file, for good. */
export function approvedForSession(
  approvals: readonly SessionApproval[],
  tool: DeclaredTool,
  snapshot: AgentRegistrySnapshot,
): boolean {
  const source = approvalSource(tool, snapshot);
  // A session rule (an approval with a `pattern`) allows what its pattern covers, through the rules, not the tool.
  return (
    source !== undefined &&
    approvals.some((a) => a.tool === tool.name && a.source === source && a.pattern === undefined)
  );
}
