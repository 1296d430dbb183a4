import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { PassThrough, Readable } from 'node:stream';
import { afterEach, describe, expect, it } from 'vitest';
import type { Io } from '../src/io.js';
import { styler } from '@birdie/terminal/style';
import { bootRepl } from '../src/repl/boot.js';
import { runSlash } from '../src/repl/slash.js';
import type { ReplState } from '../src/repl/state.js';
import { replTurn } from '../src/repl/turn.js';
import { type Sandbox, sandbox, TEST_SKILLS } from './helpers/env.js';
import { runCli } from './helpers/run-in-process.js';

const ANSWER = (n: number) => `Answer ${n}: ${'owls hunt at night and bats do too. '.repeat(25)}`;

/** A script: each `question N` answered at length, summary requests answered with a fixed summary. */
function script(extra: unknown[] = []) {
  return {
    replies: [
      ...extra,
      ...Array.from({ length: 6 }, () => ({
        match: '^Conversation to summarise:',
        text: 'SUMMARY: owls and bats hunt at night.',
      })),
      ...Array.from({ length: 8 }, (_, i) => ({ match: `^question ${i + 1}$`, text: ANSWER(i + 1) })),
    ],
  };
}

let box: Sandbox;
let state: ReplState | undefined;
let output: string[];

afterEach(async () => {
  state?.watcher?.close();
  await state?.rt.close();
  state = undefined;
  await box.cleanup();
});

/** A REPL in this process over a scripted model, with `config` as ~/.birdie/config.json. */
async function repl(
  config: Record<string, unknown>,
  extra: unknown[] = [],
  values: Record<string, string | string[]> = {},
) {
  box = await sandbox({ LLM_VENDOR: 'scripted' });
  const file = join(box.dir.path, 'long.json');
  await writeFile(file, JSON.stringify(script(extra)));
  box.env.LLM_SCRIPT = file;
  await writeFile(join(box.home, 'config.json'), JSON.stringify(config));
  const agents = join(box.dir.path, 'agents');
  await mkdir(agents);
  await writeFile(
    join(agents, 'quick.md'),
    '---\nname: quick\ndescription: Answers quickly on the fast tier.\nmodel: fast\n---\n\nYou answer in one line.\n',
  );
  output = [];
  const stdout = new PassThrough();
  stdout.on('data', (c: Buffer) => output.push(c.toString('utf8')));
  const io: Io = { stdout, stderr: stdout, stdin: Readable.from([]), env: box.env, cwd: box.cwd };
  state = await bootRepl(
    io,
    { 'skills-dir': [TEST_SKILLS], 'agents-dir': [agents], ...values },
    { approval: 'ask', style: styler(stdout, box.env), resumeId: undefined },
  );
  return state;
}

async function slash(line: string): Promise<string> {
  output.length = 0;
  await runSlash(state!, line);
  return output.join('');
}

async function turn(text: string): Promise<string> {
  output.length = 0;
  await replTurn(state!, text);
  return output.join('');
}

const cli = (...argv: string[]) => runCli(argv, { env: box.env, cwd: box.cwd });

describe('compaction in the CLI', { timeout: 60_000 }, () => {
  it('compacts on its own under a small context_window, says so, and the status line shows the share in use', async () => {
    const s = await repl({ settings: { context_window: 1000 } });
    let seen = '';
    for (let i = 1; i <= 5; i += 1) seen += await turn(`question ${i}`);
    expect(seen).toMatch(/⟲ compacted: \d+ older messages now sent as a summary \(\d+ → \d+ tok of 1000/);
    expect(seen).toMatch(/ctx: \d+ tok \(\d+%\) │/);
    const { compactions, messages } = await s.rt.agent.getState(s.session.id);
    expect(compactions.length).toBeGreaterThan(0);
    expect(messages.length).toBe(10);

    // `sessions show` shows the summary in place of what it covers; --full every message and the boundaries.
    const show = await cli('sessions', 'show', s.session.id);
    expect(show.stdout).toContain('earlier messages, sent as this summary');
    expect(show.stdout).toContain('SUMMARY: owls and bats hunt at night.');
    expect(show.stdout).not.toContain('› question 1\n');
    const full = await cli('sessions', 'show', '--full', s.session.id);
    expect(full.stdout).toContain('› question 1\n');
    expect(full.stdout).toMatch(/── compacted \(auto, .*\): the \d+ messages above are sent as a summary ──/);
  });

  it('/compact [instructions] summarises now, keeping the last exchange', async () => {
    const s = await repl({});
    expect(await slash('/compact')).toContain('Nothing to compact yet');
    await turn('question 1');
    await turn('question 2');
    const done = await slash('/compact keep the numbers');
    expect(done).toMatch(/✓ compacted 2 messages into a summary \(\d+ → \d+ tok, by scripted:scripted\)/);
    const [record] = (await s.rt.agent.getState(s.session.id)).compactions;
    expect(record).toMatchObject({ trigger: 'manual', instructions: 'keep the numbers', messages: 2 });
    expect(record?.summary).toBe('SUMMARY: owls and bats hunt at night.');
  });

  // Reported: `/compact` on a short conversation said "✓ compacted … (120 → 160 tok)": a summary that made the
  // conversation larger was recorded and sent from then on.
  it('/compact records nothing when the summary would make the conversation larger', async () => {
    const s = await repl({}, [
      { match: '^hi 1$', text: 'ok' },
      { match: '^hi 2$', text: 'ok' },
    ]);
    await turn('hi 1');
    await turn('hi 2');
    const said = await slash('/compact');
    expect(said).toMatch(
      /Not compacted: the conversation is (\d+) tok as it is and would be (\d+) tok with a summary \(by scripted:scripted\)/,
    );
    expect(said).not.toContain('✓ compacted');
    expect((await s.rt.agent.getState(s.session.id)).compactions).toEqual([]);
  });

  it('--json emits the compaction event', async () => {
    await repl({ settings: { context_window: 1000 } });
    let events = '';
    for (let i = 1; i <= 5; i += 1) {
      const run = await cli(
        'run',
        '--json',
        ...(i > 1 ? ['--session-id', state!.session.id] : []),
        `question ${i}`,
      );
      events += run.stdout;
    }
    const compaction = events
      .split('\n')
      .filter(Boolean)
      .map((l) => JSON.parse(l) as { type: string })
      .find((e) => e.type === 'compaction');
    expect(compaction).toMatchObject({
      type: 'compaction',
      trigger: 'auto',
      window: 1000,
      model: 'scripted:scripted',
    });
  });
});

describe('titles', { timeout: 60_000 }, () => {
  it('the first prompt becomes the title; /session rename and `sessions rename` change it; lists show it', async () => {
    const s = await repl({});
    await turn('question 1');
    expect(await slash('/session list')).toContain('question 1');
    expect(await slash('/session rename Owls at   night')).toContain(
      `renamed ${s.session.id}: Owls at night`,
    );
    expect(await slash('/session info')).toContain('· Owls at night');
    expect((await cli('sessions', 'rename', s.session.id, 'Bats', 'too')).stdout).toContain('Bats too');
    expect((await cli('sessions', 'list')).stdout).toMatch(new RegExp(`${s.session.id}.*Bats too`));
    expect((await cli('sessions', 'rename', s.session.id)).code).toBe(2);
  });

  // Reported: title lengths were counted in UTF-16 units, so 150 emoji (300 units) were cut to 99 and a half — a
  // lone surrogate stored as the title — and 101 emoji were refused as "over 200 characters".
  it('counts a title in characters: 150 emoji are kept whole, a longer one is cut between characters', async () => {
    const s = await repl({});
    await turn('question 1');
    const owls = '🦉'.repeat(150);
    const renamed = await cli('sessions', 'rename', s.session.id, owls);
    expect(renamed.code, renamed.stderr).toBe(0);
    expect((await s.rt.store.sessions.get(s.session.id, s.rt.userId))?.title).toBe(owls);
    expect(await slash(`/session rename ${'🦇'.repeat(250)}`)).toContain(
      `renamed ${s.session.id}: ${'🦇'.repeat(199)}…`,
    );
    const title = (await s.rt.store.sessions.get(s.session.id, s.rt.userId))?.title ?? '';
    expect(title).toBe(`${'🦇'.repeat(199)}…`);
    // No lone surrogate: every high surrogate has its low one.
    expect(title).not.toMatch(/[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/);
  });

  it('with titles: model, a short title is asked of the model', async () => {
    const s = await repl({ settings: { titles: 'model' } }, [
      { match: '^question 1$', text: ANSWER(1) },
      { match: '^question 1$', text: '"Owls hunting at night."' },
    ]);
    await turn('question 1');
    expect((await s.rt.store.sessions.get(s.session.id, s.rt.userId))?.title).toBe('Owls hunting at night');
  });

  it('a session with no exchange is not kept (an empty /new)', async () => {
    const s = await repl({});
    await turn('question 1');
    const first = s.session.id;
    await slash('/new');
    const empty = s.session.id;
    await slash(`/session switch ${first}`);
    const list = await slash('/session list');
    expect(list).toContain(first);
    expect(list).not.toContain(empty);
  });
});

describe('the model router in the CLI', { timeout: 60_000 }, () => {
  it('/model names the model in use, switches to a tier or vendor:model, and usage says which', async () => {
    await repl({ provider: { vendor: 'scripted', models: { fast: { model: 'quick' } } } });
    expect(await slash('/model')).toContain('model: scripted:scripted · tiers: fast, default');
    expect(await slash('/model strong')).toContain('No model tier "strong"');
    expect(await slash('/model nonsense')).toContain('neither a tier');
    expect(await slash('/model fast')).toContain('model: scripted:quick from the next turn');
    const shown = await turn('question 1');
    expect(shown).toContain('scripted · quick │ session:');
    expect(await slash('/info')).toMatch(/model\s+scripted:quick \(tiers: fast\)/);
    expect(await slash('/model scripted:other')).toContain('model: scripted:other from the next turn');
    const logs = await cli('logs', '--json');
    // The run log names the model that answered (the tier resolved), not the tier asked for.
    expect(logs.stdout).toContain('"model":"scripted:quick"');
  });

  it('the switch_model tool is offered when tiers are configured', async () => {
    const s = await repl({ provider: { vendor: 'scripted', models: { strong: { model: 'deep' } } } });
    const tools = (await s.rt.agent.toolsFor(s.session.id)).map((t) => t.name);
    expect(tools).toContain('switch_model');
  });

  it('an agent file that names a tier answers on that tier', async () => {
    await repl({ provider: { vendor: 'scripted', models: { fast: { model: 'quick' } } } }, [], {
      agent: 'quick',
    });
    const shown = await turn('question 1');
    expect(shown).toContain('agent: quick │ scripted · quick │ session:');
  });

  it('tiers resolve as agent files and /model name them; a tier the config lacks is refused', async () => {
    await repl({ provider: { vendor: 'scripted', models: { fast: { model: 'quick' } } } });
    const resolved = await state!.rt.resolveModel('fast');
    expect(resolved.name).toBe('scripted:quick');
    await expect(state!.rt.resolveModel('strong')).rejects.toThrow(/No model tier "strong"/);
  });
});
