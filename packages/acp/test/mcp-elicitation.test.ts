import { type ClientCapabilities, methods, PROTOCOL_VERSION } from '@agentclientprotocol/sdk';
import type { McpElicitationResult } from '@birdie/graph';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';
import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { ElicitRequestSchema } from '@modelcontextprotocol/sdk/types.js';
import { describe, expect, it } from 'vitest';
import type { AcpTurnOptions } from '../src/index.js';
import { connect, fakeRuntime, type TestClient, W } from './helpers.js';

// The form server-everything's `trigger-elicitation-request` asks for (its fields, trimmed).
const requestedSchema = {
  type: 'object' as const,
  properties: {
    name: { title: 'Your Name', type: 'string' as const, description: 'Your full name' },
    favoriteColor: {
      title: 'Favorite Color',
      type: 'string' as const,
      enum: ['Red', 'Blue', 'Green'],
    },
    agreeToTerms: { title: 'Terms Agreement', type: 'boolean' as const },
  },
  required: ['name'],
};

/**
 * A real MCP server (the SDK's `Server`) asking for the form through `elicitInput`, connected to an SDK `Client` with
 * form elicitation whose handler is the turn's `mcp.elicit`, as birdie's MCP client wires it: returns what the
 * server received (or the error it got).
 */
async function serverAsks(o: AcpTurnOptions): Promise<McpElicitationResult | string> {
  const server = new Server({ name: 'everything', version: '1' }, { capabilities: {} });
  const client = new Client(
    { name: 'birdie', version: '1' },
    { capabilities: { elicitation: { form: {} } } },
  );
  client.setRequestHandler(ElicitRequestSchema, async (request) => {
    const elicit = o.mcp?.elicit;
    if (!elicit) return { action: 'decline' };
    return elicit(request.params, { server: 'everything' });
  });
  const [a, b] = InMemoryTransport.createLinkedPair();
  await Promise.all([server.connect(a), client.connect(b)]);
  try {
    return await server.elicitInput({ message: 'Please provide inputs', requestedSchema });
  } catch (error) {
    return error instanceof Error ? error.message : String(error);
  } finally {
    await client.close();
    await server.close();
  }
}

async function turnWithForm(capabilities: ClientCapabilities, fill?: TestClient['fill']) {
  const heard: Array<McpElicitationResult | string> = [];
  const { runtime, logs } = fakeRuntime({
    turn: async (_text, o) => {
      heard.push(await serverAsks(o));
      return { status: 'ok' };
    },
  });
  const test = connect(runtime);
  if (fill) test.fill = fill;
  await test.connection.agent.request(methods.agent.initialize, {
    protocolVersion: PROTOCOL_VERSION,
    clientCapabilities: capabilities,
  });
  const { sessionId } = await test.connection.agent.request(methods.agent.session.new, {
    cwd: W,
    mcpServers: [],
  });
  await test.connection.agent.request(methods.agent.session.prompt, {
    sessionId,
    prompt: [{ type: 'text', text: 'go' }],
  });
  return { heard, forms: test.forms, sessionId, logs };
}

const withForms: ClientCapabilities = {
  fs: { readTextFile: false, writeTextFile: false },
  elicitation: { form: {} },
};

// Issue 33: an MCP server's form during an ACP turn goes to the editor as `elicitation/create` when it can show forms.
describe('MCP elicitation over ACP', () => {
  it('shows the form to an editor that can, and returns its accepted values to the server', async () => {
    const { heard, forms, sessionId } = await turnWithForm(withForms, () => ({
      action: 'accept',
      content: { name: 'Ada', favoriteColor: 'Blue', agreeToTerms: true },
    }));
    expect(heard).toEqual([
      { action: 'accept', content: { name: 'Ada', favoriteColor: 'Blue', agreeToTerms: true } },
    ]);
    expect(forms).toHaveLength(1);
    expect(forms[0]).toMatchObject({
      mode: 'form',
      sessionId,
      message: 'everything: Please provide inputs',
      requestedSchema,
    });
  });

  it("passes the editor's decline and cancel to the server", async () => {
    const declined = await turnWithForm(withForms, () => ({ action: 'decline' }));
    expect(declined.heard).toEqual([{ action: 'decline' }]);
    expect(declined.forms).toHaveLength(1);
    const cancelled = await turnWithForm(withForms, () => ({ action: 'cancel' }));
    expect(cancelled.heard).toEqual([{ action: 'cancel' }]);
  });

  it("declines an accepted answer that does not fit the server's schema", async () => {
    const { heard, forms, logs } = await turnWithForm(withForms, () => ({
      action: 'accept',
      content: { favoriteColor: 'Mauve' },
    }));
    expect(forms).toHaveLength(1);
    expect(heard).toEqual([{ action: 'decline' }]);
    expect(logs.join('\n')).toMatch(/does not fit its schema.*name/);
  });

  it('declines without asking an editor that did not advertise form elicitation', async () => {
    const { heard, forms } = await turnWithForm(
      { fs: { readTextFile: false, writeTextFile: false } },
      () => ({
        action: 'accept',
        content: { name: 'Ada' },
      }),
    );
    expect(forms).toEqual([]);
    expect(heard).toEqual([{ action: 'decline' }]);
  });
});
