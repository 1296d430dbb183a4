import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { AIMessage } from '@langchain/core/messages';
import { describe, expect, it } from 'vitest';
import { agentSetup, callTools, collect, ofType, stringArg, toolSkill, useCleanups } from './helpers.js';

// A template whose command runs the value as code (`sh -c` code holds it): it loads, with a code-taking warning.
const EACH = "bash:find . -maxdepth 0 -exec sh -c 'echo {n}' \\;";

const files = {
  'runner/SKILL.md': toolSkill('runner', [
    { name: 'each', entrypoint: EACH, schema: stringArg('n'), description: 'Echo for each match' },
    {
      name: 'each_trusted',
      entrypoint: EACH,
      schema: stringArg('n'),
      description: 'The same, the author vouching for its values',
      extra: 'approval: never\n',
    },
  ]),
};

const cleanups = useCleanups();
const fixture = agentSetup(cleanups);

describe('a tool whose command can run a value as code', () => {
  it('asks before each call (reason runs-code) and runs nothing until approved', async () => {
    const { fx, model, agent } = await fixture(files);
    const asked = join(fx.dir.path, 'asked');
    model
      .respond(callTools([{ name: 'each', args: { n: `$(touch ${asked})` }, id: 'c1' }]))
      .respond(new AIMessage('done'));
    const events = await collect(agent.stream('go', { threadId: 't1' }));
    expect(ofType(events, 'approval-request')[0]?.requests.map((r) => [r.tool, r.reason])).toEqual([
      ['each', 'runs-code'],
    ]);
    expect(existsSync(asked)).toBe(false);
    await collect(agent.resume('t1', { c1: { type: 'approve' } }));
    // approved, the value does run as code: what the question was for
    expect(existsSync(asked)).toBe(true);
  });

  it('runs without asking when the tool block says approval: never', async () => {
    const { fx, model, agent } = await fixture(files);
    const trusted = join(fx.dir.path, 'trusted');
    model
      .respond(callTools([{ name: 'each_trusted', args: { n: `$(touch ${trusted})` }, id: 'c2' }]))
      .respond(new AIMessage('done'));
    const events = await collect(agent.stream('go', { threadId: 't1' }));
    expect(ofType(events, 'approval-request')).toEqual([]);
    expect(existsSync(trusted)).toBe(true);
  });
});
