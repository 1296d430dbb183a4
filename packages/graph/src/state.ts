import { MessagesDeltaValue, ReducedValue, StateSchema } from '@langchain/langgraph';
import { z } from 'zod';
import { addFound } from './tool-selection.js';
import type { ArchiveRecord, CompactionRecord, SessionApproval } from './types.js';

/** Union that keeps first-seen order, so replaying writes in any batching gives the same list. */
function addNames(current: string[], update: string[]): string[] {
  const seen = new Set(current);
  const next = [...current];
  for (const name of update) {
    if (!seen.has(name)) {
      seen.add(name);
      next.push(name);
    }
  }
  return next;
}

/** The newest approval of a tool replaces an older one (the tool's file may have changed in between). */
function addApprovals(current: SessionApproval[], update: SessionApproval[]): SessionApproval[] {
  const next = [...current];
  for (const approval of update) {
    // One entry per tool and pattern: a command pattern never replaces (nor becomes) the whole tool's approval.
    const at = next.findIndex((a) => a.tool === approval.tool && a.pattern === approval.pattern);
    if (at === -1) next.push(approval);
    else next[at] = approval;
  }
  return next;
}

const sessionApproval = z.object({
  tool: z.string(),
  skill: z.string().optional(),
  source: z.string(),
  /** A session rule: the allow pattern approved (kept, or the approval would widen to the whole tool). */
  pattern: z.string().optional(),
  at: z.string(),
});

const archiveRecord = z.object({
  checkpointId: z.string(),
  upTo: z.string(),
  offset: z.number(),
  at: z.string(),
});

const compactionRecord = z.object({
  upTo: z.string(),
  messages: z.number(),
  summary: z.string(),
  skills: z.array(z.string()),
  trigger: z.enum(['auto', 'manual']),
  instructions: z.string().optional(),
  tokensBefore: z.number(),
  tokensAfter: z.number(),
  model: z.string(),
  at: z.string(),
});

/**
 * Messages use LangGraph's delta channel (each checkpoint stores the step's new messages, not the whole list);
 * `loadedSkills` holds only names of skills the model loaded with `load_skill`, never their bodies; `sender` is the
 * agent the thread continues with (`''` or absent: the default agent), written when a turn names one or a `handoff`
 * moves the conversation — so a resumed session, even in a new process, goes on with whoever spoke last.
 * `compactions` records each summary of the older conversation and where it ends (appended, never rewritten): what
 * is sent changes, the history does not (the summarised part is archived, not dropped: see `archives`), and a resumed
 * thread sends the same summary without making it again.
 * `sessionApprovals` holds the tools the user approved for the rest of the session, each bound to the file that
 * declared it: checkpointed like the messages, so they survive a resume on any checkpointer, and `/new` (a new
 * thread) starts without them. `foundTools` holds the names `find_tools` added (names only, in rising priority: newest find last, best-ranked
 * result last within it): bound
 * from then on while the tool budget holds, on a resume too.
 * `archives` records each time the `messages` channel was reset to what follows a compaction's boundary (see
 * `thread-archive.ts`): the older messages stay in the checkpoint it names, so a start decodes only what follows.
 */
export const AgentState = new StateSchema({
  messages: MessagesDeltaValue,
  loadedSkills: new ReducedValue(
    z.array(z.string()).default(() => []),
    {
      inputSchema: z.array(z.string()),
      reducer: addNames,
    },
  ),
  sender: z.string().optional(),
  compactions: new ReducedValue(
    z.array(compactionRecord).default(() => []),
    {
      inputSchema: z.array(compactionRecord),
      reducer: (current: CompactionRecord[], update: CompactionRecord[]) => [...current, ...update],
    },
  ),
  archives: new ReducedValue(
    z.array(archiveRecord).default(() => []),
    {
      inputSchema: z.array(archiveRecord),
      reducer: (current: ArchiveRecord[], update: ArchiveRecord[]) => [...current, ...update],
    },
  ),
  foundTools: new ReducedValue(
    z.array(z.string()).default(() => []),
    {
      inputSchema: z.array(z.string()),
      reducer: addFound,
    },
  ),
  sessionApprovals: new ReducedValue(
    z.array(sessionApproval).default(() => []),
    {
      inputSchema: z.array(sessionApproval),
      reducer: addApprovals,
    },
  ),
});

export type AgentStateValue = typeof AgentState.State;
export type AgentStateUpdate = typeof AgentState.Update;
