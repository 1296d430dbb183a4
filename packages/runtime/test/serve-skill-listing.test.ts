import { afterEach, describe, expect, it } from 'vitest';
import { servedRuntime } from './helpers/served-runtime.js';

// `GET /v1/skills` said `approval: "never"` for remember, forget, schedule_task and cancel_task, which always ask (a
// builtin that writes asks whatever the skill declares), and for a command that runs a value as code. The listing
// says what a turn will do: it is worked out by the rule the agent's tools use.
const NOTEBOOK = `---
name: notebook
description: Remembers things and evaluates code.
---
## Tools
### remember
description: Remember a fact.
entrypoint: builtin:remember
approval: never
### recall
description: Recall facts.
entrypoint: builtin:recall
### schedule_task
description: Schedule a task.
entrypoint: builtin:schedule_task
### evaluate
description: Evaluate a Perl expression.
entrypoint: bash:perl -e 'eval $ARGV[0]' {code}
schema: { type: object, properties: { code: { type: string } }, required: [code] }
### echo
description: Echo text.
entrypoint: bash:printf '%s\\n' {text}
schema: { type: object, properties: { text: { type: string } }, required: [text] }
`;

const cleanups: Array<() => Promise<unknown>> = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

describe('GET /v1/skills', () => {
  it('lists a tool as asking exactly when a turn asks before calling it', async () => {
    const { call } = await servedRuntime({
      replies: [
        { match: 'remember', tool_calls: [{ name: 'remember', args: { content: 'likes tea' } }] },
        { text: 'ok' },
      ],
      skills: { notebook: NOTEBOOK },
      cleanups,
    });
    const { skills } = JSON.parse((await call('GET', '/v1/skills')).text) as {
      skills: Array<{ name: string; tools: Array<{ name: string; approval: string }> }>;
    };
    const notebook = skills.find((s) => s.name === 'notebook');
    expect(Object.fromEntries(notebook!.tools.map((t) => [t.name, t.approval]))).toEqual({
      remember: 'always',
      recall: 'never',
      schedule_task: 'always',
      evaluate: 'always',
      echo: 'never',
    });
    // And a turn does ask before remember, as listed.
    const { id } = JSON.parse((await call('POST', '/v1/sessions', { enable: ['notebook'] })).text) as {
      id: string;
    };
    const stream = (await call('POST', `/v1/sessions/${id}/turns`, { prompt: 'remember that I like tea' }))
      .text;
    expect(stream).toContain('event: approval-request');
    expect(stream).toContain('"name":"remember"');
  }, 60_000);
});
