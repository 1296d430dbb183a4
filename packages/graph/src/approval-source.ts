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
export function approvalSource(tool: DeclaredTool, snapshot: AgentRegistrySnapshot): string | undefined {
  if (tool.kind === 'builtin') return 'builtin';
  if (!tool.skill) return undefined;
  const skill = snapshot.getSkill(tool.skill);
  if (!skill) return undefined;
  let digest = digests.get(skill);
  if (digest === undefined) {
    digest = createHash('sha256').update(stableStringify(skill)).digest('hex');
    digests.set(skill, digest);
  }
  return `${tool.kind}:sha256:${digest}`;
}

/** Whether the session approved this tool, as declared by the same file, for good. */
export function approvedForSession(
  approvals: readonly SessionApproval[],
  tool: DeclaredTool,
  snapshot: AgentRegistrySnapshot,
): boolean {
  const source = approvalSource(tool, snapshot);
  return source !== undefined && approvals.some((a) => a.tool === tool.name && a.source === source);
}
