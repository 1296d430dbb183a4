import { methods, PROTOCOL_VERSION } from '@agentclientprotocol/sdk';
import { describe, expect, it } from 'vitest';
import { connect, fakeRuntime, type TestClient, W } from './helpers.js';

// Exploratory report (acp), defect 2: every error of session/prompt carries `data.code`, as the README's table says.

async function openSession(test: TestClient): Promise<string> {
  await test.connection.agent.request(methods.agent.initialize, {
    protocolVersion: PROTOCOL_VERSION,
    clientCapabilities: {},
  });
  return (await test.connection.agent.request(methods.agent.session.new, { cwd: W, mcpServers: [] }))
    .sessionId;
}

const say = (test: TestClient, sessionId: string) =>
  test.connection.agent.request(methods.agent.session.prompt, {
    sessionId,
    prompt: [{ type: 'text', text: 'x' }],
  });

describe('session/prompt errors', () => {
  it("a turn that cannot start keeps the runtime's code (session-busy) as data.code", async () => {
    const { runtime } = fakeRuntime({
      turn: async () => {
        throw Object.assign(new Error('session s is in use by process 7'), { code: 'session-busy' });
      },
    });
    const test = connect(runtime);
    await expect(say(test, await openSession(test))).rejects.toMatchObject({
      code: -32603,
      message: expect.stringContaining('session s is in use by process 7'),
      data: { code: 'session-busy' },
    });
  });

  it('a failure nothing named is data.code internal, whether thrown or in the result', async () => {
    for (const turn of [
      async () => {
        throw new Error('it broke');
      },
      async () => ({ status: 'error' as const, error: 'it broke' }),
    ]) {
      const { runtime } = fakeRuntime({ turn });
      const test = connect(runtime);
      await expect(say(test, await openSession(test))).rejects.toMatchObject({
        code: -32603,
        message: expect.stringContaining('it broke'),
        data: { code: 'internal' },
      });
    }
  });
});
