import type { ApprovalRule } from '@birdie/graph';
import type { Runtime } from './runtime.js';

/**
 * The approval rules in force for a session, deny first (precedence deny > ask > allow), each with its source: the
 * runtime's (settings, project, operator), then the patterns the session allowed (`/permissions`). Agents' and
 * skills' rules apply only while they run or are loaded, so they are not here.
 */
export async function rulesInForce(rt: Runtime, sessionId: string): Promise<ApprovalRule[]> {
  const rules = [...rt.approvalRules];
  const view = await rt.agent.getState(sessionId, { recent: true }).catch(() => undefined);
  for (const approval of view?.sessionApprovals ?? [])
    if (approval.pattern)
      rules.push({ pattern: approval.pattern, effect: 'allow', source: { kind: 'session' } });
  const order = { deny: 0, ask: 1, allow: 2 } as const;
  return rules.sort((a, b) => order[a.effect] - order[b.effect]);
}
