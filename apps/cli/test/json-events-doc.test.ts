import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { CLI_ROOT, type Sandbox, SCRIPTS, sandbox, TEST_SKILLS } from './helpers/env.js';
import { runCli } from './helpers/run-in-process.js';

type Event = { type: string; [key: string]: unknown };

/** The README's `--json` table: each event type with its fields, `?` marking the optional ones. */
async function documentedEvents(): Promise<Map<string, { required: string[]; optional: string[] }>> {
  const readme = await readFile(join(CLI_ROOT, 'README.md'), 'utf8');
  const table = readme.slice(readme.indexOf('| type | fields | when |'));
  const rows = new Map<string, { required: string[]; optional: string[] }>();
  for (const line of table.split('\n').slice(2)) {
    if (!line.startsWith('| `')) break;
    const [, type, fields] = line.split('|').map((cell) => cell.trim());
    const names = [...(fields ?? '').matchAll(/`([a-zA-Z]+)(\?)?`/g)];
    rows.set(type!.replaceAll('`', ''), {
      required: names.filter((m) => !m[2]).map((m) => m[1]!),
      optional: names.filter((m) => m[2]).map((m) => m[1]!),
    });
  }
  return rows;
}

let box: Sandbox;
beforeEach(async () => {
  box = await sandbox();
});
afterEach(async () => {
  await box.cleanup();
});

async function stream(argv: string[], env: NodeJS.ProcessEnv): Promise<Event[]> {
  const result = await runCli(['run', '--json', ...argv], { env: { ...box.env, ...env }, cwd: box.cwd });
  return result.stdout
    .trim()
    .split('\n')
    .map((line) => JSON.parse(line) as Event);
}

describe('birdie run --json against the README table', { timeout: 60_000 }, () => {
  it('every event of a tool turn, a refused call, a failing model and a subagent has exactly the documented fields', async () => {
    const script = (name: string) => ({ LLM_VENDOR: 'scripted', LLM_SCRIPT: join(SCRIPTS, name) });
    const review = join(box.dir.path, 'review.json');
    await writeFile(
      review,
      JSON.stringify({
        replies: [
          {
            match: 'review',
            tool_calls: [{ name: 'task', args: { agent: 'researcher', prompt: 'Which?' } }],
          },
          { match: 'Which', text: 'That one.' },
          { match: 'review', text: 'Fine.' },
        ],
      }),
    );
    const runs = [
      await stream(['--skills-dir', TEST_SKILLS, 'count these'], script('count.json')),
      await stream(['--skills-dir', TEST_SKILLS, 'touch it'], script('count.json')),
      await stream(['hello'], script('failing.json')),
      await stream(['busy vendor'], script('repl.json')),
      await stream(['--agent', 'reviewer', 'review my change'], {
        LLM_VENDOR: 'scripted',
        LLM_SCRIPT: review,
        BIRDIE_BUNDLED_AGENTS: join(CLI_ROOT, 'agents'),
      }),
    ];
    // A session that outgrows a small context_window: its turns compact (a `compaction` event, and usage with context).
    const long = join(box.dir.path, 'long.json');
    const answer = 'owls hunt at night and bats do too. '.repeat(25);
    await writeFile(
      long,
      JSON.stringify({
        replies: [
          ...Array.from({ length: 4 }, () => ({ match: '^Conversation to summarise:', text: 'SUMMARY.' })),
          ...Array.from({ length: 5 }, (_, i) => ({ match: `^question ${i}$`, text: answer })),
        ],
      }),
    );
    await writeFile(join(box.home, 'config.json'), JSON.stringify({ settings: { context_window: 1000 } }));
    const longEnv = { LLM_VENDOR: 'scripted', LLM_SCRIPT: long };
    const first = await stream(['question 0'], longEnv);
    runs.push(first);
    for (let i = 1; i < 5; i += 1)
      runs.push(await stream(['--session-id', String(first[0]?.id), `question ${i}`], longEnv));
    const table = await documentedEvents();
    const seen = new Set<string>();
    for (const events of runs) {
      expect(events[0]?.type).toBe('session');
      expect(events.filter((e) => e.type === 'done')).toHaveLength(1);
      expect(events.at(-2)?.type).toBe('done');
      expect(events.at(-1)).toMatchObject({ type: 'result', status: events.at(-2)?.status });
      for (const event of events) {
        const row = table.get(event.type);
        expect(row, `event type ${event.type} is not in the README table`).toBeDefined();
        seen.add(event.type);
        const keys = Object.keys(event).filter((k) => k !== 'type');
        for (const key of row!.required) expect(keys, `${event.type} lacks ${key}`).toContain(key);
        for (const key of keys)
          expect([...row!.required, ...row!.optional], `${event.type} has undocumented ${key}`).toContain(
            key,
          );
      }
    }
    // The runs above cover every type but the acp vendor's own two (its tests cover those) and `tool-approved`, which
    // needs an approval for the session given in the REPL first (approval-session.test.ts checks its exact fields), and
    // `tool-rule`, which needs approval rules in the settings (permissions.test.ts checks its exact fields), and
    // `tool-selection`, which needs more tools than the tool budget (find-tools.test.ts checks its fields).
    const elsewhere = new Set([
      'model-tool',
      'model-approval',
      'tool-approved',
      'tool-rule',
      'tool-selection',
    ]);
    expect([...seen].sort()).toEqual([...table.keys()].filter((type) => !elsewhere.has(type)).sort());
  });
});
