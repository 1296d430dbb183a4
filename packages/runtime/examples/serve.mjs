// birdie's HTTP API over a runtime opened on a temp folder with one custom skill, without the CLI.
// The model comes from the environment, as for the CLI (LLM_VENDOR, OPENAI_API_KEY, …).
import { mkdir, mkdtemp, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { openServeRuntime } from '@birdie/runtime/server-runtime';
import { createServer } from '@birdie/server';

const home = await mkdtemp(join(tmpdir(), 'birdie-embed-'));
const skill = join(home, 'skills', 'shouter'); // the user's skills folder of this BIRDIE_HOME
await mkdir(skill, { recursive: true });
await writeFile(
  join(skill, 'SKILL.md'),
  `---
name: shouter
description: Shouts text back in capital letters.
---
## Tools
### shout
description: Print the text in capital letters.
entrypoint: bash:printf '%s\\n' {text} | tr a-z A-Z
schema: { type: object, properties: { text: { type: string } }, required: [text] }
`,
);
const io = { env: { ...process.env, BIRDIE_HOME: home }, cwd: home, stderr: process.stderr };

// The operator's policy, the workspaces and the sandbox, as `birdie serve` sets them up.
const { rt, runtime, workspaces, limits } = await openServeRuntime(io, {});
const server = createServer({ runtime, workspaces, limits, version: '1.0.0' });
const { url } = await server.listen({ host: '127.0.0.1', port: 0 });
const { token } = await rt.store.tokens.create('alice');
console.log(`listening on ${url}`);
console.log(`token ${token}`);

process.once('SIGTERM', async () => {
  await server.close({ graceMs: 1000 }); // running turns finish, then the rest are cancelled
  await rt.close();
});
