import type { AgentContext, RequestPermissionRequest } from '@agentclientprotocol/sdk';
import { methods } from '@agentclientprotocol/sdk';

/**
 * What became of a `session/request_permission`: an option chosen, the question cancelled (by the editor, or withdrawn
 * with the turn), or no usable answer (an error reply, an answer without a valid `outcome`): then `reason` says so,
 * for the log and the call's refusal. Never a user's cancel when the user said nothing.
 */
export type PermissionAnswer =
  | { kind: 'selected'; optionId: string }
  | { kind: 'cancelled' }
  | { kind: 'failed'; reason: string };

export async function askEditor(
  client: AgentContext,
  params: RequestPermissionRequest,
  signal: AbortSignal,
): Promise<PermissionAnswer> {
  let answer: unknown;
  try {
    // A cancelled turn stops waiting at once: a client that never answers the withdrawn question (its dialog
    // dismissed, no `$/cancel_request` support) must not hold the prompt, and the session, forever.
    answer = await client.request(methods.client.session.requestPermission, params, {
      cancellationSignal: signal,
      stopWaitingOnCancel: true,
    });
  } catch (error) {
    if (signal.aborted) return { kind: 'cancelled' };
    const message = error instanceof Error ? error.message : String(error);
    return {
      kind: 'failed',
      reason: `the editor answered the permission request with an error (${message})`,
    };
  }
  const outcome = (answer as { outcome?: { outcome?: unknown; optionId?: unknown } } | null)?.outcome;
  if (outcome?.outcome === 'selected' && typeof outcome.optionId === 'string')
    return { kind: 'selected', optionId: outcome.optionId };
  if (outcome?.outcome === 'cancelled') return { kind: 'cancelled' };
  return {
    kind: 'failed',
    reason: `the editor's answer to the permission request was not understood (${JSON.stringify(answer)?.slice(0, 200)})`,
  };
}
