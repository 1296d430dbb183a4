// One skill load in a fresh process, after the library is imported: prints its milliseconds. What a start pays
// (cold JIT, the library's first use), as opposed to the warm median that peers.mjs takes in one process.
//   node bench/peers/load-skills.mjs birdie|deepagents
import { CORPUS, quietly } from './agents.mjs';

const side = process.argv[2];
let load;
if (side === 'birdie') {
  const { loadRegistry } = await import('@birdie/registry');
  load = async () => (await loadRegistry({ dirs: [CORPUS] })).current().skills.length;
} else {
  const { createSkillsMiddleware, FilesystemBackend } = await import('deepagents');
  const middleware = createSkillsMiddleware({
    backend: new FilesystemBackend({ rootDir: CORPUS, virtualMode: true }),
    sources: ['/'],
  });
  load = async () => (await middleware.beforeModel({})).skillsMetadata.length;
}
const t0 = performance.now();
const count = await quietly(load);
const ms = performance.now() - t0;
if (count !== 14) throw new Error(`${side} loaded ${count} skills, not 14`);
console.log(ms.toFixed(3));
