import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { createScriptedModel } from '@birdie/providers';
import { describe, expect, it } from 'vitest';
import type { AgentEvent } from '../src/index.js';
import { agentOn, ofType, skillsFixture, toolSkill, useCleanups } from './helpers.js';

const cleanups = useCleanups();

async function agentWith(entrypoint: string) {
  const fx = await skillsFixture({
    'live/SKILL.md': toolSkill('live', [{ name: 'work', entrypoint, extra: 'timeout: 20\n' }]),
  });
  const model = createScriptedModel({
    replies: [{ tool_calls: [{ name: 'work', args: {}, id: 'w1' }] }, { text: 'Done.' }],
  });
  return { agent: agentOn(cleanups, fx, model), dir: fx.dir.path };
}

describe('tool-output events while a tool runs', { timeout: 60_000 }, () => {
  it('streams output before the call ends: the tool waits for a file the test writes on seeing its first line', async () => {
    const { agent, dir } = await agentWith(
      'bash:echo ready; while [ ! -e go.flag ]; do sleep 0.05; done; echo after >&2',
    );
    const events: AgentEvent[] = [];
    for await (const event of agent.stream('go', { threadId: 't1' })) {
      events.push(event);
      // Only a live event can release the tool: without one it would wait until its timeout.
      if (event.type === 'tool-output' && event.text.includes('ready'))
        await writeFile(join(dir, 'go.flag'), '');
    }
    const types = events.map((e) => e.type);
    expect(types.indexOf('tool-start')).toBeLessThan(types.indexOf('tool-output'));
    expect(types.lastIndexOf('tool-output')).toBeLessThan(types.indexOf('tool-end'));
    const live = ofType(events, 'tool-output');
    expect(live[0]).toEqual({
      type: 'tool-output',
      id: 'w1',
      name: 'work',
      stream: 'stdout',
      text: 'ready\n',
    });
    expect(
      live
        .filter((e) => e.stream === 'stderr')
        .map((e) => e.text)
        .join(''),
    ).toBe('after\n');
    // The result the model reads is unchanged.
    expect(ofType(events, 'tool-end')[0]).toMatchObject({ ok: true, output: 'ready\nafter\n' });
  });

  it('coalesces a flood of output into few bounded events, the newest text last', async () => {
    // 40 bursts of 2,000 lines (about 350 KB in all), each followed by a short pause.
    const { agent } = await agentWith(
      'bash:for i in $(seq 1 40); do seq 1 2000; sleep 0.02; done; echo last line',
    );
    const events: AgentEvent[] = [];
    for await (const event of agent.stream('go', { threadId: 't1' })) events.push(event);
    const live = ofType(events, 'tool-output');
    const end = ofType(events, 'tool-end')[0]!;
    expect(end.ok).toBe(true);
    expect(live.length).toBeGreaterThan(0);
    // About one event per 100 ms of the call's own run time (and one for the rest at its end).
    expect(live.length).toBeLessThanOrEqual(Math.ceil(end.durationMs / 100) + 2);
    // Bounded: each event holds only the newest part of its interval, so far less than the ~356 KB printed.
    const printed = 40 * Array.from({ length: 2000 }, (_, i) => `${i + 1}\n`).join('').length;
    expect(live.reduce((n, e) => n + e.text.length, 0)).toBeLessThan(printed * 0.75);
    for (const event of live) expect(event.text.length).toBeLessThanOrEqual(4096);
    // In order, the newest text last: the pieces end as the output did.
    expect(
      live
        .map((e) => e.text)
        .join('')
        .endsWith('2000\nlast line\n'),
    ).toBe(true);
  });
});
