// Cold start, deepagents: import, build the agent (corpus skills + the tool), answer one turn, exit.
import { deepAgent, makeModel, quietly } from './agents.mjs';

const { model } = await makeModel({ tools: false });
const side = await deepAgent({ model });
await quietly(() => side.turn('hello', 'cold'));
