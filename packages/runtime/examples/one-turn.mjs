// One turn through the runtime (lease, run log, tool journal), printing its events; the model comes from the
// environment, as for the CLI (LLM_VENDOR, OPENAI_API_KEY, …).
import { mkdir, mkdtemp, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createSession, executeTurn, openRuntime } from '@birdie/runtime';

const home = await mkdtemp(join(tmpdir(), 'birdie-embed-'));
const skill = join(home, 'skills', 'shouter');
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
const rt = await openRuntime(io, { user: 'alice' });
try {
  const session = await createSession(rt);
  const result = await executeTurn(rt, session, process.argv[2] ?? 'shout hello', {
    approval: 'never', // this program is its own user: nothing to ask
    signal: AbortSignal.timeout(60_000),
    waitMs: 0,
    handlers: {
      onEvent: (event) => console.log(event.type, JSON.stringify(event).slice(0, 160)),
      decide: async () => undefined,
    },
  });
  console.log(`${session.id}: ${result.status}, ${result.toolCalls} tool call(s)`);
} finally {
  await rt.close();
}
