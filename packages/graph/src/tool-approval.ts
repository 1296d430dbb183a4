// `@birdie/graph/tool-approval`: when a skill's tool asks before a call, by the rule the agent's tools are built with —
// for whoever describes a tool without building it (a server's skill listing), so that what it says is what a turn
// does; whether a session approval may answer a call that asks (never one an ask rule asks about); and the command
// pattern a question may offer to allow for the session.

import { type Entrypoint, resolveEntrypoint } from '@birdie/entrypoints';
import type { Skill, SkillTool } from '@birdie/skill-parser';
import { builtinApproval, builtinTarget } from './memory-tools.js';
import { entrypointApproval } from './skill-tool.js';
import type { ApprovalReason } from './tool.js';
import type { ApprovalMode } from './types.js';

export { suggestCommandPattern } from './command-pattern.js';
export { type SessionOffer, sessionApprovalMayAnswer, sessionOffer } from './session-approval.js';

/** Why a call of `skill`'s `tool` asks under a session's approval mode, or null when it runs at once. */
export function skillToolApproval(
  skill: Skill,
  tool: SkillTool,
): (mode: ApprovalMode) => ApprovalReason | null {
  const target = builtinTarget(tool);
  if (target !== undefined) return builtinApproval(target, tool);
  let entrypoint: Entrypoint | undefined;
  try {
    entrypoint = resolveEntrypoint(tool.entrypoint, {
      skillDir: skill.dir,
      schema: tool.schema,
      settings: tool,
    });
  } catch {
    // An entrypoint that does not resolve runs nothing (every call fails); it asks as its declaration says.
  }
  return entrypointApproval(entrypoint, tool);
}
