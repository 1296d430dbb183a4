import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type LoadedRegistry, loadRegistry } from '@birdie/registry';
import type { ScheduledTask } from '@birdie/store';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { AgentHolds } from '../src/agent-holds.js';

let dir: string;
let registry: LoadedRegistry;

const writeAgent = (name: string) =>
  writeFile(
    join(dir, `${name}.md`),
    `---\nname: ${name}\ndescription: The ${name} agent.\n---\n\nYou help.\n`,
  );

const task = (id: number, fields: Partial<ScheduledTask> = {}): ScheduledTask => ({
  id,
  userId: 'ann',
  prompt: 'work',
  every: 60,
  status: 'active',
  createdAt: new Date(0),
  ...fields,
});

beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'agent-holds-'));
  await mkdir(dir, { recursive: true });
  await writeAgent('helper');
  registry = await loadRegistry({ dirs: [], agentDirs: [dir] });
});
afterEach(async () => {
  await rm(dir, { recursive: true, force: true });
});

describe('AgentHolds', () => {
  it('holds a recurring task whose agent no file defines, says it once, and lifts it once the agent is there', async () => {
    const said: string[] = [];
    const holds = new AgentHolds({ registry }, (t, why) => said.push(`${t.id}: ${why}`), { watched: true });
    const tasks = [task(1, { agent: 'helper' }), task(2, { agent: 'digest' }), task(3), task(7, { agent: '' })];
    expect(holds.held).toEqual([]);
    expect(holds.schedulable(tasks).map((t) => t.id)).toEqual([1, 3, 7]);
    expect(holds.schedulable(tasks).map((t) => t.id)).toEqual([1, 3, 7]);
    expect(holds.held).toEqual([2]);
    expect(said).toEqual([
      '2: it runs agent "digest", which no agent file here defines now; it runs again once one does (birdie agents list shows the agents found), or cancel it (birdie tasks cancel 2)',
    ]);

    await writeAgent('digest');
    await registry.reload();
    expect(holds.schedulable(tasks).map((t) => t.id)).toEqual([1, 2, 3, 7]);
    expect(holds.held).toEqual([]);

    // Held again after it was lifted: said again.
    await rm(join(dir, 'digest.md'));
    await registry.reload();
    expect(holds.schedulable(tasks).map((t) => t.id)).toEqual([1, 3, 7]);
    expect(said).toHaveLength(2);
  });

  it('says that a server (agent files read at start) runs the task once one defines the agent and it restarts', () => {
    const said: string[] = [];
    const holds = new AgentHolds({ registry }, (_t, why) => said.push(why), { withUser: true });
    holds.schedulable([task(8, { agent: 'digest' })]);
    expect(said).toEqual([
      'it runs agent "digest", which no agent file here defines now; it runs once one does and the server restarts (it reads the agent files at start), or cancel it (birdie tasks cancel 8 --user ann)',
    ]);
  });

  it('never holds a one-time task: its one firing fails and ends it', () => {
    const holds = new AgentHolds({ registry }, () => expect.unreachable());
    const once = task(4, { agent: 'digest', every: undefined, at: new Date(0) });
    expect(holds.schedulable([once])).toEqual([once]);
  });

  it('holds a task the source refuses, with the refusal and the user in the cancel command', () => {
    const said: string[] = [];
    const holds = new AgentHolds({ registry }, (_t, why) => said.push(why), {
      refusal: (agent) => (agent === 'helper' ? undefined : `agent "${agent}" is not allowed here`),
      withUser: true,
    });
    expect(
      holds.schedulable([task(5, { agent: 'helper' }), task(6, { agent: 'other' })]).map((t) => t.id),
    ).toEqual([5]);
    expect(said).toEqual([
      'agent "other" is not allowed here; it runs once that setting allows the agent and the server restarts, or cancel it (birdie tasks cancel 6 --user ann)',
    ]);
  });
});
