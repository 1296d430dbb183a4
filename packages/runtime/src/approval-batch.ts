import type { ApprovalDecision, ApprovalRequest, ApprovalRule } from '@birdie/graph';
import { sessionApprovalMayAnswer } from '@birdie/graph/tool-approval';

/**
 * The session approvals given while one batch of approval requests is answered: a later call of the batch that one of
 * them covers is approved the same way without asking (the agent only records them once the batch is answered). A
 * tool allowed for the session covers every call of it; a command pattern covers the calls it matches. A call an ask
 * rule asks about is never covered: it is asked, as the agent would ask it in a later step.
 */
export class ApprovalBatch {
  readonly #tools = new Set<string>();
  readonly #patterns: ApprovalRule[] = [];
  readonly #root: string | undefined;

  /**
   * `root` is the turn's workspace: a pattern covers a path argument by the real path it names there (a symbolic
   * link followed), as the session rule will once the agent has it.
   */
  constructor(root?: string) {
    this.#root = root;
  }

  /** The tool allowed for the rest of the session. */
  allowTool(tool: string): ApprovalDecision {
    this.#tools.add(tool);
    return { type: 'approve', scope: 'session' };
  }

  /** A command pattern (a shell command's prefix) allowed for the rest of the session. */
  allowPattern(pattern: string): ApprovalDecision {
    this.#patterns.push({ pattern, effect: 'allow', source: { kind: 'session' } });
    return { type: 'approve', scope: 'session', pattern };
  }

  /** The decision an earlier answer of the batch already gives `request`, with what covered it (tool or pattern). */
  async covered(request: ApprovalRequest): Promise<{ decision: ApprovalDecision; by: string } | undefined> {
    if (!sessionApprovalMayAnswer(request.reason)) return undefined;
    if (this.#tools.has(request.tool))
      return { decision: { type: 'approve', scope: 'session' }, by: request.tool };
    if (this.#patterns.length === 0) return undefined;
    const { compileRules } = await import('@birdie/graph');
    const decided = compileRules(this.#patterns).decide({
      tool: {
        name: request.tool,
        ...(request.skill ? { skill: request.skill } : {}),
        raw: request.raw === true,
      },
      args: request.args,
      ...(this.#root !== undefined ? { root: this.#root } : {}),
    });
    if (decided?.effect !== 'allow') return undefined;
    const pattern = decided.rule.pattern;
    return { decision: { type: 'approve', scope: 'session', pattern }, by: pattern };
  }
}
