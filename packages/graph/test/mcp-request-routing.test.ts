import { existsSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { AIMessage, type BaseMessage, ToolMessage } from '@langchain/core/messages';
import { describe, expect, it } from 'vitest';
import type { AgentEvent, McpTurnHandlers } from '../src/index.js';
import { agentSetup, collect, toolMessages, useCleanups, waitFor } from './helpers.js';

// One agent (so one MCP manager) serves several users' turns at once, as under `birdie serve`: what a server asks
// during a call must reach the turn that made that call, never another turn that happens to be running.

const askingServer = fileURLToPath(new URL('./fixtures/asking-server.mjs', import.meta.url));

const cleanups = useCleanups();
const setup = agentSetup(cleanups);

function askingSkill(name: string, prefix: string): string {
  const args = JSON.stringify([askingServer, prefix]);
  return `---\nname: ${name}\ndescription: asks the client during calls\nenabled_by_default: true\nmcp_server:\n  transport: stdio\n  command: node\n  args: ${args}\n---\n`;
}

interface Ask {
  tool: string;
  kind: 'sample' | 'elicit';
  prompt: string;
}

/** The model calls the tool a turn's message names (as JSON), then ends the turn once it has the result. */
function scriptedModel(
  model: { respond(entry: (messages: BaseMessage[]) => BaseMessage): unknown },
  gate: string,
) {
  const reply = (messages: BaseMessage[]): BaseMessage => {
    const last = messages.at(-1);
    if (last instanceof ToolMessage) return new AIMessage('ok');
    const ask = JSON.parse(String(last?.content)) as Ask;
    return new AIMessage({
      content: '',
      tool_calls: [
        { id: `call-${ask.prompt}`, name: ask.tool, args: { kind: ask.kind, prompt: ask.prompt, gate } },
      ],
    });
  };
  for (let i = 0; i < 12; i += 1) model.respond(reply);
}

/** A turn's handlers that approve nothing but record every request they see. */
function recording(): { seen: string[]; handlers: McpTurnHandlers } {
  const seen: string[] = [];
  return {
    seen,
    handlers: {
      approveSampling: async (ask) => {
        seen.push(`sample: ${JSON.stringify(ask.request.messages)}`);
        return false;
      },
      elicit: async (request) => {
        seen.push(`elicit: ${request.message}`);
        return { action: 'accept', content: { name: 'from the handler' } };
      },
    },
  };
}

/** The file the fixture server writes when a call starts (see fixtures/asking-server.mjs). */
function started(gate: string, ask: Ask): string {
  return `${gate}-${ask.prompt.replace(/\W/g, '_')}`;
}

/**
 * Starts each turn in order and waits until its call is running on the server, then lets every server ask at once:
 * each request is sent, and answered, while all the turns' calls are in flight.
 */
async function concurrentTurns(
  agent: Awaited<ReturnType<typeof setup>>['agent'],
  gate: string,
  turns: Array<{ thread: string; ask: Ask; mcp?: McpTurnHandlers }>,
): Promise<{ results: Record<string, string>; events: Record<string, AgentEvent[]> }> {
  const running: Array<Promise<AgentEvent[]>> = [];
  for (const turn of turns) {
    running.push(
      collect(
        agent.stream(JSON.stringify(turn.ask), {
          threadId: turn.thread,
          ...(turn.mcp ? { mcp: turn.mcp } : {}),
        }),
      ),
    );
    await waitFor(() => existsSync(started(gate, turn.ask)) || undefined, 30_000);
  }
  writeFileSync(gate, '');
  for (const turn of turns)
    await waitFor(() => existsSync(`${started(gate, turn.ask)}-asked`) || undefined, 30_000);
  writeFileSync(`${gate}-done`, '');
  const streams = await Promise.all(running);
  const results: Record<string, string> = {};
  const events: Record<string, AgentEvent[]> = {};
  for (const [i, turn] of turns.entries()) {
    results[turn.thread] = String((await toolMessages(agent, turn.thread)).at(0)?.content ?? '');
    events[turn.thread] = streams[i] ?? [];
  }
  return { results, events };
}

describe('what a server asks during a call reaches only that call’s turn', { timeout: 90_000 }, () => {
  it('sampling: two turns calling two servers at once each see only their own server’s request', async () => {
    const { agent, model, fx } = await setup({
      'asker-a/SKILL.md': askingSkill('asker-a', 'a'),
      'asker-b/SKILL.md': askingSkill('asker-b', 'b'),
    });
    const gate = join(fx.dir.path, 'gate');
    scriptedModel(model, gate);
    const userA = recording();
    const userB = recording();
    const { results, events } = await concurrentTurns(agent, gate, [
      { thread: 'ta', ask: { tool: 'a_ask', kind: 'sample', prompt: 'secret of A' }, mcp: userA.handlers },
      { thread: 'tb', ask: { tool: 'b_ask', kind: 'sample', prompt: 'secret of B' }, mcp: userB.handlers },
    ]);
    // What the servers log during the calls is each turn's own news too.
    const logs = (thread: string) =>
      (events[thread] ?? []).flatMap((e) =>
        e.type === 'mcp-notice' && e.notice.kind === 'log' ? [e.notice.data] : [],
      );
    expect(logs('ta')).toEqual(['on secret of A']);
    expect(logs('tb')).toEqual(['on secret of B']);
    expect(userA.seen).toHaveLength(1);
    expect(userA.seen[0]).toContain('secret of A');
    expect(userB.seen).toHaveLength(1);
    expect(userB.seen[0]).toContain('secret of B');
    expect(results.ta).toContain('refused');
    expect(results.tb).toContain('refused');
  });

  it('elicitation: a turn without handlers declines while another turn with handlers is running', async () => {
    const { agent, model, fx } = await setup({
      'asker-a/SKILL.md': askingSkill('asker-a', 'a'),
      'asker-b/SKILL.md': askingSkill('asker-b', 'b'),
    });
    const gate = join(fx.dir.path, 'gate');
    scriptedModel(model, gate);
    const userB = recording();
    const { results } = await concurrentTurns(agent, gate, [
      { thread: 'ta', ask: { tool: 'a_ask', kind: 'elicit', prompt: 'form of A' } },
      { thread: 'tb', ask: { tool: 'b_ask', kind: 'elicit', prompt: 'form of B' }, mcp: userB.handlers },
    ]);
    expect(userB.seen).toEqual(['elicit: form of B']);
    expect(results.ta).toBe('elicited: decline {}');
    expect(results.tb).toBe('elicited: accept {"name":"from the handler"}');
  });

  it('sampling: a turn without handlers is refused while another turn with handlers is running', async () => {
    const { agent, model, fx } = await setup({
      'asker-a/SKILL.md': askingSkill('asker-a', 'a'),
      'asker-b/SKILL.md': askingSkill('asker-b', 'b'),
    });
    const gate = join(fx.dir.path, 'gate');
    scriptedModel(model, gate);
    const userB = recording();
    const { results } = await concurrentTurns(agent, gate, [
      { thread: 'ta', ask: { tool: 'a_ask', kind: 'sample', prompt: 'secret of A' } },
      { thread: 'tb', ask: { tool: 'b_ask', kind: 'sample', prompt: 'secret of B' }, mcp: userB.handlers },
    ]);
    expect(userB.seen).toHaveLength(1);
    expect(userB.seen[0]).toContain('secret of B');
    expect(results.ta).toContain('does not sample');
  });

  it('two turns calling the same server at once: neither user is asked; sampling is refused, elicitation declined', async () => {
    // One connection cannot tell which of the two calls a request belongs to, so neither user may be asked.
    const { agent, model, fx } = await setup({ 'asker-a/SKILL.md': askingSkill('asker-a', 'a') });
    const gate = join(fx.dir.path, 'gate');
    scriptedModel(model, gate);
    const userA = recording();
    const userB = recording();
    const { results } = await concurrentTurns(agent, gate, [
      { thread: 'ta', ask: { tool: 'a_ask', kind: 'sample', prompt: 'secret of A' }, mcp: userA.handlers },
      { thread: 'tb', ask: { tool: 'a_ask', kind: 'elicit', prompt: 'form of B' }, mcp: userB.handlers },
    ]);
    expect(userA.seen).toEqual([]);
    expect(userB.seen).toEqual([]);
    expect(results.ta).toContain('refused');
    expect(results.tb).toBe('elicited: decline {}');
  });
});
