import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { BaseChatModel } from '@langchain/core/language_models/chat_models';
import { AIMessage, type BaseMessage, ToolMessage } from '@langchain/core/messages';
import type { ChatResult } from '@langchain/core/outputs';
import { describe, expect, it } from 'vitest';
import type { AgentEvent, McpNotice } from '../src/index.js';
import { agentOn, agentSetup, collect, skillsFixture, useCleanups, waitFor } from './helpers.js';

// A server may speak while none of its calls runs: after a call returned, while the model thinks about its result.
// What it says then still belongs to the turn that used it, so it reaches that turn's events (and its run log),
// unless two turns hold the same connection: then it is nobody's turn and goes to the process-wide listener.

const lateLogServer = fileURLToPath(new URL('./fixtures/late-log-server.mjs', import.meta.url));

const cleanups = useCleanups();
const setup = agentSetup(cleanups);

const skill = `---\nname: late\ndescription: logs after its calls\nenabled_by_default: true\nmcp_server:\n  transport: stdio\n  command: node\n  args: ${JSON.stringify([lateLogServer])}\n---\n`;

/**
 * Calls `log_later` with the turn's message as label, then, given the result, opens the gate (the server logs now)
 * and keeps thinking until `heard()` says the log arrived somewhere, so it arrives while the turn is still running.
 */
class ThinkingModel extends BaseChatModel {
  thinking = 0;
  constructor(
    private readonly gate: string,
    private readonly heard: () => boolean,
    private readonly turns = 1,
  ) {
    super({});
  }
  _llmType() {
    return 'thinking';
  }
  override bindTools() {
    return this as never;
  }
  async _generate(messages: BaseMessage[]): Promise<ChatResult> {
    const last = messages.at(-1);
    if (!(last instanceof ToolMessage)) {
      const label = String(last?.content);
      const message = new AIMessage({
        content: '',
        tool_calls: [{ id: `call-${label}`, name: 'log_later', args: { label, gate: this.gate } }],
      });
      return { generations: [{ text: '', message }] };
    }
    this.thinking += 1;
    // Every turn is thinking (none of the server's calls runs) before the server is let speak.
    await waitFor(() => this.thinking >= this.turns || undefined, 30_000);
    writeFileSync(this.gate, '');
    await waitFor(() => this.heard() || undefined, 30_000);
    return { generations: [{ text: 'done', message: new AIMessage('done') }] };
  }
}

/** Reads a turn's events as they come, into `into`. */
async function drain(events: AsyncIterable<AgentEvent>, into: AgentEvent[]): Promise<AgentEvent[]> {
  for await (const event of events) into.push(event);
  return into;
}

const logs = (events: AgentEvent[]) =>
  events.flatMap((e) => (e.type === 'mcp-notice' && e.notice.kind === 'log' ? [e.notice.data] : []));

describe('what a server says between its calls, during a turn', { timeout: 90_000 }, () => {
  it('a log message sent after the call returned, while the model thinks, is the turn’s event', async () => {
    const fx = await skillsFixture({ 'late/SKILL.md': skill });
    const events: AgentEvent[] = [];
    const processWide: McpNotice[] = [];
    const heard = () => logs(events).length > 0 || processWide.length > 0;
    const model = new ThinkingModel(join(fx.dir.path, 'gate'), heard);
    const agent = agentOn(cleanups, fx, model, [], { mcp: { onNotice: (n) => processWide.push(n) } });
    await drain(agent.stream('first', { threadId: 't1' }), events);
    expect(logs(events)).toEqual(['after first']);
    expect(processWide).toEqual([]);
    expect(events.at(-1)).toMatchObject({ type: 'done', status: 'ok' });
  });

  it('two turns holding the same server: a log sent while neither call runs reaches neither turn', async () => {
    const fx = await skillsFixture({ 'late/SKILL.md': skill });
    const a: AgentEvent[] = [];
    const b: AgentEvent[] = [];
    const processWide: McpNotice[] = [];
    const heard = () => processWide.length >= 2 || logs(a).length + logs(b).length > 0;
    const model = new ThinkingModel(join(fx.dir.path, 'gate'), heard, 2);
    const agent = agentOn(cleanups, fx, model, [], { mcp: { onNotice: (n) => processWide.push(n) } });
    await Promise.all([
      drain(agent.stream('of A', { threadId: 'ta' }), a),
      drain(agent.stream('of B', { threadId: 'tb' }), b),
    ]);
    expect(logs(a)).toEqual([]);
    expect(logs(b)).toEqual([]);
    expect(processWide.map((n) => (n.kind === 'log' ? n.data : n.kind)).sort()).toEqual([
      'after of A',
      'after of B',
    ]);
  });

  it('a log message sent after the turn ended is nobody’s: the process-wide listener hears it', async () => {
    const processWide: McpNotice[] = [];
    const { agent, model, fx } = await setup(
      { 'late/SKILL.md': skill },
      {},
      {
        mcp: { onNotice: (n) => processWide.push(n) },
      },
    );
    const gate = join(fx.dir.path, 'gate');
    model.respond(
      new AIMessage({
        content: '',
        tool_calls: [{ id: 'c1', name: 'log_later', args: { label: 'the turn', gate } }],
      }),
    );
    model.respond(new AIMessage('done'));
    const events = await collect(agent.stream('go', { threadId: 't' }));
    expect(events.at(-1)).toMatchObject({ type: 'done', status: 'ok' });
    writeFileSync(gate, '');
    await waitFor(() => processWide.length > 0 || undefined, 30_000);
    expect(processWide).toMatchObject([{ kind: 'log', server: 'late', data: 'after the turn' }]);
    expect(logs(events)).toEqual([]);
  });
});
