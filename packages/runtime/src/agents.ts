import { sep } from 'node:path';
import type { SkillDirectory } from '@birdie/registry';
import type { DiagnosticLike } from './diagnostics.js';

/**
 * Whether a registry message is about an agent: its file is an agents folder or inside one. `skills list|check` leave
 * those to `agents list|check`, and the other way round.
 */
export function isAgentMessage(
  message: DiagnosticLike,
  agentDirectories: readonly SkillDirectory[],
): boolean {
  const file = message.file;
  if (!file) return false;
  return agentDirectories.some((dir) => file === dir.path || file.startsWith(dir.path + sep));
}
