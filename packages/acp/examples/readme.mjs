// birdie's ACP agent served over an in-memory connection to the SDK's client, with a toy runtime whose turn calls one
// tool that needs approval: what an editor sees, in order. Run after `pnpm build`: node examples/readme.mjs
import { client, methods, PROTOCOL_VERSION } from '@agentclientprotocol/sdk';
import { serveAcp } from '@birdie/acp';
import { AIMessage } from '@langchain/core/messages';

const runtime = {
  info: { name: 'birdie', version: '0.0.0' },
  defaultApproval: 'ask',
  createSession: async () => 'demo-1',
  hasSession: async (id) => id === 'demo-1',
  history: async () => [],
  skillIdentity: (skill) => `bundled:/skills/${skill}/SKILL.md`,
  log: (line) => console.error(line),
  // A real runtime runs the agent (birdie's CLI passes executeTurn); this one plays the events of one turn.
  async runTurn(_id, text, turn) {
    const args = { command: 'make clean' };
    turn.onEvent({
      type: 'message',
      message: new AIMessage({
        content: '',
        tool_calls: [{ id: 'c1', name: 'run_bash', args, type: 'tool_call' }],
      }),
    });
    const decisions = await turn.decide([
      {
        id: 'c1',
        digest: '…',
        tool: 'run_bash',
        skill: 'shell',
        args,
        description: 'Run shell command: make clean',
        reason: 'raw-command',
      },
    ]);
    if (decisions.c1.type === 'approve') {
      turn.onEvent({ type: 'tool-start', id: 'c1', name: 'run_bash', skill: 'shell', args });
      turn.onEvent({
        type: 'tool-end',
        id: 'c1',
        name: 'run_bash',
        ok: true,
        output: 'cleaned',
        truncated: false,
        durationMs: 4,
      });
    }
    turn.onEvent({ type: 'token', text: `You said: ${text}` });
    return { status: 'ok' };
  },
};

const toAgent = new TransformStream();
const toClient = new TransformStream();
serveAcp(runtime, { readable: toAgent.readable, writable: toClient.writable });
const editor = client({ name: 'example-editor' })
  .onNotification(methods.client.session.update, ({ params: { update } }) => {
    const { sessionUpdate, toolCallId, status, title, content } = update;
    console.log(
      'update    ',
      JSON.stringify({ sessionUpdate, toolCallId, status, title, text: content?.text }),
    );
  })
  .onRequest(methods.client.session.requestPermission, ({ params }) => {
    console.log('permission', params.toolCall.title, params.options.map((o) => o.optionId).join(' | '));
    return { outcome: { outcome: 'selected', optionId: 'allow-once' } };
  })
  .connect({ readable: toClient.readable, writable: toAgent.writable });

const init = await editor.agent.request(methods.agent.initialize, { protocolVersion: PROTOCOL_VERSION });
console.log('agent     ', JSON.stringify(init.agentInfo), 'loadSession:', init.agentCapabilities.loadSession);
const { sessionId, modes } = await editor.agent.request(methods.agent.session.new, {
  cwd: process.cwd(),
  mcpServers: [],
});
console.log('session   ', sessionId, 'modes:', modes.availableModes.map((m) => m.id).join(', '));
const { stopReason } = await editor.agent.request(methods.agent.session.prompt, {
  sessionId,
  prompt: [{ type: 'text', text: 'clean the build' }],
});
console.log('stop      ', stopReason);
editor.close();
