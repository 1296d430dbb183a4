// Cold start, birdie as a library: import, build the agent (corpus skills + the tool skill), answer one turn, exit.
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { birdieAgent, makeModel, writeToolSkill } from './agents.mjs';

const dir = await mkdtemp(join(tmpdir(), 'birdie-cold-'));
try {
  const { model } = await makeModel({ tools: false });
  const side = await birdieAgent({ model, toolDir: await writeToolSkill(dir) });
  await side.turn('hello', 'cold');
  await side.close();
} finally {
  await rm(dir, { recursive: true, force: true });
}
