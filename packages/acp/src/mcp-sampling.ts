import { randomUUID } from 'node:crypto';
import type { AgentContext, ClientCapabilities, SessionUpdate } from '@agentclientprotocol/sdk';
import { methods } from '@agentclientprotocol/sdk';
import type { McpSamplingApproval, McpTurnHandlers } from '@birdie/graph';
import { acpElicit, canElicitForms } from './elicitation.js';
import { askEditor } from './permission-answer.js';

export const SAMPLING_ALLOW = 'allow-sampling';
export const SAMPLING_REJECT = 'reject-sampling';

const SHOWN = 2000;

/** What the editor's permission prompt says of a sampling request: the messages, or the model's answer. */
export function samplingText(ask: McpSamplingApproval): string {
  const clip = (text: string) => (text.length > SHOWN ? `${text.slice(0, SHOWN)}…` : text);
  if (ask.answer !== undefined) return clip(ask.answer);
  const lines = ask.request.messages.map((m) => {
    const blocks = Array.isArray(m.content) ? m.content : [m.content];
    return `${m.role}: ${blocks.map((b) => ('text' in b && typeof b.text === 'string' ? b.text : `[${b.type}]`)).join(' ')}`;
  });
  return clip(
    [...(ask.request.systemPrompt ? [`system: ${ask.request.systemPrompt}`] : []), ...lines].join('\n'),
  );
}

/**
 * An MCP server's requests during an ACP turn: sampling is a permission request to the editor (the request, then the
 * model's answer), each allowed once or rejected; a form elicitation is ACP's `elicitation/create` when the editor
 * advertised `elicitation.form` at initialize (its answer checked against the server's schema), else declined.
 */
export function acpMcpHandlers(
  client: AgentContext,
  sessionId: string,
  signal: AbortSignal,
  capabilities: ClientCapabilities | undefined,
  log: (line: string) => void,
  send: (update: SessionUpdate) => void = (update) =>
    void client.notify(methods.client.session.update, { sessionId, update }).catch(() => {}),
): McpTurnHandlers {
  return {
    ...(canElicitForms(capabilities) ? { elicit: acpElicit(client, sessionId, signal, log) } : {}),
    approveSampling: async (ask) => {
      // Unique within the session (ACP's tool call ids are), whichever prompt asks: a counter per prompt repeated them.
      const toolCallId = `mcp-sampling-${randomUUID()}`;
      const title =
        ask.answer === undefined
          ? `MCP server ${ask.server} asks the model for a completion`
          : `Send the model's answer to MCP server ${ask.server}`;
      const answer = await askEditor(
        client,
        {
          sessionId,
          toolCall: {
            toolCallId,
            title,
            kind: 'other',
            status: 'pending',
            content: [{ type: 'content', content: { type: 'text', text: samplingText(ask) } }],
          },
          options: [
            { optionId: SAMPLING_ALLOW, name: 'Allow', kind: 'allow_once' },
            { optionId: SAMPLING_REJECT, name: 'Reject', kind: 'reject_once' },
          ],
        },
        signal,
      );
      if (answer.kind === 'failed')
        log(`birdie acp: MCP server ${ask.server}'s sampling: ${answer.reason}; refused`);
      const allowed = answer.kind === 'selected' && answer.optionId === SAMPLING_ALLOW;
      // The question made an entry in the editor's list of calls: it ends as the answer decided, never left pending.
      send({ sessionUpdate: 'tool_call_update', toolCallId, status: allowed ? 'completed' : 'failed' });
      return allowed;
    },
  };
}
