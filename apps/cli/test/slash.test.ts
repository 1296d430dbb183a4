import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { PassThrough, Readable } from 'node:stream';
import { configureSandbox } from '@birdie/entrypoints';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { Io } from '../src/io.js';
import { styler } from '@birdie/terminal/style';
import { bootRepl } from '../src/repl/boot.js';
import { runSlash } from '../src/repl/slash.js';
import type { ReplState } from '../src/repl/state.js';
import { replTurn } from '../src/repl/turn.js';
import { CLI_ROOT, type Sandbox, sandbox, scripted, TEST_SKILLS } from './helpers/env.js';

let box: Sandbox;
let state: ReplState;
let output: string[];

beforeEach(async () => {
  box = await sandbox({ ...scripted('repl.json'), BIRDIE_BUNDLED_AGENTS: join(CLI_ROOT, 'agents') });
  output = [];
  const stdout = new PassThrough();
  stdout.on('data', (c: Buffer) => output.push(c.toString('utf8')));
  const io: Io = { stdout, stderr: stdout, stdin: Readable.from([]), env: box.env, cwd: box.cwd };
  state = await bootRepl(
    io,
    { 'skills-dir': [TEST_SKILLS] },
    { approval: 'ask', style: styler(stdout, box.env), resumeId: undefined },
  );
});
afterEach(async () => {
  state.watcher?.close();
  await state.rt.close();
  await box.cleanup();
});

/** Runs one slash command and returns what it printed. */
async function slash(line: string): Promise<string> {
  output.length = 0;
  const result = await runSlash(state, line);
  await new Promise((r) => setImmediate(r));
  return output.join('') + (result === 'quit' ? '<quit>' : '');
}

describe('slash commands', () => {
  it('/help lists every command and the keys', async () => {
    const help = await slash('/help');
    for (const c of [
      '/remember',
      '/memory',
      '/info',
      '/tool list',
      '/tool output',
      '/skill list',
      '/skill reload',
      '/session',
      '/new',
      '/approval',
      '/clear',
      '/quit',
    ]) {
      expect(help).toContain(c);
    }
    expect(help).toContain('Ctrl+J new line');
  });

  it('/quit and /exit leave; unknown commands suggest the closest', async () => {
    expect(await slash('/quit')).toBe('<quit>');
    expect(await slash('/exit')).toBe('<quit>');
    expect(await slash('/rmember x')).toContain('Did you mean "/remember"?');
    expect(await slash('/sesion list')).toContain('Did you mean "/session"?');
  });

  it('/skill enable|disable persist to the session, unknown names suggest, list shows who set it', async () => {
    expect(await slash('/skill list')).toMatch(/off\s+echoer\s+tool\s+shout\s+default/);
    expect(await slash('/skill enable ecoer')).toContain('No skill "ecoer". Did you mean "echoer"?');
    expect(await slash('/skill enable ECHOER')).toContain('echoer enabled');
    const echoer = `explicit:${join(TEST_SKILLS, 'echoer', 'SKILL.md')}`;
    expect(await state.rt.store.grants.get(state.session.id, state.rt.userId)).toEqual({
      enabled: ['echoer'],
      disabled: [],
      sources: { echoer },
    });
    expect(await slash('/skill list')).toMatch(/on\s+echoer\s+tool\s+shout\s+this session/);
    expect(await slash('/tool list')).toMatch(/shout\s+echoer\s+Print the text in capital letters\./);
    expect(await slash('/skill disable sleeper')).toContain('sleeper disabled');
    expect(await slash('/tool list')).not.toContain('slow_sleep');
    expect(await state.rt.store.grants.get(state.session.id, state.rt.userId)).toEqual({
      enabled: ['echoer'],
      disabled: ['sleeper'],
      sources: { echoer },
    });
    expect(await slash('/skill frobnicate')).toContain('Usage: /skill list');
  });

  it('/skill enable A B acts on every name; one unknown name changes nothing (scale report 6)', async () => {
    const enabled = await slash('/skill enable echoer sleeper');
    expect(enabled).toContain('echoer, sleeper enabled for session');
    expect(await slash('/skill list')).toMatch(/on\s+echoer\s+tool\s+shout\s+this session/);
    expect(await slash('/skill list')).toMatch(/on\s+sleeper\s+tool\s+slow_sleep.*this session/);
    expect((await state.rt.store.grants.get(state.session.id, state.rt.userId))?.enabled).toEqual([
      'echoer',
      'sleeper',
    ]);
    // A typo among the names: nothing is changed, and the answer names the unknown one.
    const refused = await slash('/skill disable echoer sleper');
    expect(refused).toContain('No skill "sleper". Did you mean "sleeper"?');
    expect(refused).toContain('Nothing was changed');
    expect((await state.rt.store.grants.get(state.session.id, state.rt.userId))?.enabled).toEqual([
      'echoer',
      'sleeper',
    ]);
    expect(await slash('/skill disable echoer sleeper')).toContain('echoer, sleeper disabled for session');
  });

  it('a command that takes one word refuses extra words instead of dropping them', async () => {
    expect(await slash('/approval never always')).toContain('Usage: /approval ask|always|never');
    expect(state.approval).toBe('ask');
  });

  it('/skill reload picks up a skill added meanwhile', async () => {
    const extra = join(box.home, 'skills', 'late-comer');
    await mkdir(extra, { recursive: true });
    await writeFile(
      join(extra, 'SKILL.md'),
      '---\nname: late-comer\ndescription: Added while the session ran.\n---\n\nProse.\n',
    );
    expect(await slash('/skill reload')).toMatch(/reloaded: 6 skills, 0 errors/);
    expect(await slash('/skill list')).toMatch(/on\s+late-comer\s+knowledge/);
  });

  it('a skill added while the session runs is live without /skill reload (the registry is watched)', async () => {
    const dir = join(box.home, 'skills', 'live-one');
    await mkdir(dir, { recursive: true });
    await writeFile(
      join(dir, 'SKILL.md'),
      '---\nname: live-one\ndescription: Watched into the session.\n---\n\nProse.\n',
    );
    let listed = '';
    for (let i = 0; i < 100 && !listed.includes('live-one'); i++) {
      await new Promise((r) => setTimeout(r, 50));
      listed = await slash('/skill list');
    }
    expect(listed).toMatch(/on\s+live-one\s+knowledge/);
    expect(state.notices.join('\n')).toContain('skills reloaded: 6 skills');
  });

  it("the reload notice shows the error the user's edit just caused first, not the same old ones (scale report 10)", async () => {
    const skills = join(box.home, 'skills');
    const noticeWith = async (text: string) => {
      for (let i = 0; i < 400 && !state.notices.join('\n').includes(text); i++)
        await new Promise((r) => setTimeout(r, 50));
      return state.notices.join('\n');
    };
    for (const name of ['broken-a1', 'broken-a2', 'broken-a3', 'broken-a4']) {
      await mkdir(join(skills, name), { recursive: true });
      await writeFile(join(skills, name, 'SKILL.md'), 'no frontmatter\n');
    }
    expect(await noticeWith('4 errors')).toContain('broken-a1');
    await mkdir(join(skills, 'zz-mine'), { recursive: true });
    await writeFile(
      join(skills, 'zz-mine', 'SKILL.md'),
      '---\nname: zz-mine\ndescription: broken: colon\n---\n\nProse.\n',
    );
    const notice = await noticeWith('5 errors');
    expect(notice).toContain('zz-mine/SKILL.md');
    expect(notice).toContain('… 2 more');
  });

  it('/tool output and /approval change modes and validate them', async () => {
    expect(await slash('/tool output off')).toContain('tool output: off');
    expect(state.toolMode).toBe('off');
    expect(await slash('/tool output shrt')).toContain('Did you mean "short"?');
    expect(await slash('/approval never')).toContain('approval: never');
    expect(state.approval).toBe('never');
    expect(await slash('/approval')).toContain('approval: never');
    expect(await slash('/approval sometimes')).toContain('must be ask, always or never');
  });

  it('/tool output off shows the tool name and line count only', async () => {
    await slash('/skill enable echoer');
    await slash('/tool output off');
    output.length = 0;
    await replTurn(state, 'please shout');
    const text = output.join('');
    expect(text).toContain('⚙ shout (echoer) {"text":"hello birdie"}');
    expect(text).not.toContain('HELLO BIRDIE');
    expect(text).toContain('└ ✓ shout · 1 line');
    expect(text).toMatch(/scripted · scripted │ session: \S+ │ ctx: \d+ tok \(\d+%\) │ spent: ↑\d+ ↓\d+ tok/);
  });

  it('/remember, /memory and /memory forget keep long-term memory per user', async () => {
    expect(await slash('/remember prefers metric units')).toContain('remembered as #1');
    expect(await slash('/remember')).toContain('Usage: /remember TEXT');
    expect(await slash('/memory')).toMatch(/#1\s+\S+\s+prefers metric units/);
    expect(await slash('/memory forget 1')).toContain('Forgot #1.');
    expect(await slash('/memory forget 1')).toContain('No memory #1.');
    expect(await slash('/memory')).toContain('No long-term memory yet');
  });

  it('/info names the user, session, provider and where its config came from', async () => {
    const info = await slash('/info');
    expect(info).toMatch(/user\s+tester/);
    expect(info).toMatch(new RegExp(`session\\s+${state.session.id} \\(0 turns`));
    expect(info).toMatch(/provider\s+scripted · scripted/);
    expect(info).toMatch(/config\s+vendor ← env LLM_VENDOR/);
    expect(info).toContain('script ← env LLM_SCRIPT');
    expect(info).toMatch(/memory files\s+none/);
  });

  it('/agent lists the agents, switches from the next turn, and the status line names the agent', async () => {
    expect(await slash('/agent')).toContain('No agent: the default prompt answers.');
    expect(await slash('/agent list')).toMatch(/reviewer\s+bundled/);
    expect(await slash('/agent reviwer')).toContain('No agent "reviwer". Did you mean "reviewer"?');
    expect(await slash('/agent reviewer')).toContain('reviewer answers from the next turn');
    expect(state.nextAgent).toBe('reviewer');
    await replTurn(state, 'anything else');
    expect(output.join('')).toMatch(/agent: reviewer │ scripted · scripted │ session:/);
    expect(await slash('/agent')).toMatch(/^agent: reviewer — Reviews a change/);
    expect(await slash('/agent none')).toContain('no agent from the next turn');
  });

  it("/info lists the AGENTS.md files a turn reads, and leaves an untrusted project's out", async () => {
    await writeFile(join(box.home, 'AGENTS.md'), 'Answer in English.\n');
    await writeFile(join(box.cwd, 'AGENTS.md'), 'Run the tests with make check.\n');
    const info = await slash('/info');
    expect(info).toContain(
      `memory files  ${join(box.home, 'AGENTS.md')}; not read (folder not trusted): AGENTS.md`,
    );
  });

  it('/info shows the sandbox mode and which enabled tools run sandboxed', async () => {
    await slash('/skill enable raw-shell');
    const declared = await slash('/info');
    expect(declared).toMatch(/sandbox\s+tools that declare sandbox: true · /);
    expect(declared).toMatch(/sandboxed\s+\(no enabled tool\)/);
    // what --sandbox / settings.sandbox: always do for the process
    configureSandbox('always');
    try {
      const always = await slash('/info');
      expect(always).toMatch(/sandbox\s+always \(every bash:, python: and node: tool but birdie's own\)/);
      expect(always).toMatch(/sandboxed\s+.*\brun_command\b/);
    } finally {
      configureSandbox(undefined);
    }
  });

  it('/config sets and lists defaults like birdie config; /info shows the non-default ones with their source', async () => {
    expect(await slash('/info')).toMatch(/settings\s+all defaults/);
    expect(await slash('/config set titles model')).toContain('titles = model');
    expect(await slash('/config list')).toMatch(/titles\s+model\s+file /);
    expect(await slash('/info')).toMatch(/settings\s+titles=model ← file /);
    expect(await slash('/config set approval maybe')).toContain(
      'settings.approval must be ask, always or never',
    );
    expect(await slash('/config get approval')).toContain('ask');
  });

  it('/session new, list, switch (with history), delete and info; /new', async () => {
    const first = state.session.id;
    await replTurn(state, 'please shout');
    expect(await slash('/session new')).toContain('new session');
    const second = state.session.id;
    expect(second).not.toBe(first);
    const list = await slash('/session list');
    expect(list).toMatch(new RegExp(`\\*\\s+${second}`));
    expect(list).toContain(first);
    // Deleting the current session moves to a new one first (issue 30, defect 11).
    expect(await slash(`/session delete ${second}`)).toContain(`deleted ${second}; new session`);
    const switched = await slash(`/session switch ${first}`);
    expect(switched).toContain(`switched to ${first}`);
    expect(switched).toContain('› please shout');
    expect(await slash('/session info')).toContain(`session ${first} · user tester · 1 turn`);
    // The session left without an exchange was not kept.
    expect(await slash(`/session delete ${second}`)).toContain(`no session "${second}"`);
    expect(await slash('/session new')).toContain('new session');
    await replTurn(state, 'please shout');
    const third = state.session.id;
    await slash(`/session switch ${first}`);
    expect(await slash(`/session delete ${third}`)).toContain(`deleted ${third}`);
    const unknown = await slash('/session switch 2020-01-01_1');
    expect(unknown).toContain('no session "2020-01-01_1"');
    // Inside the REPL the hint names the REPL's command, not the shell's.
    expect(unknown).toContain('/session list');
    expect(unknown).not.toContain('birdie sessions list');
    expect(await slash('/new')).toContain('new session');
    expect(state.session.id).not.toBe(first);
    expect(await slash('/session swich')).toContain('Did you mean "switch"?');
  });

  it('/clear clears the screen', async () => {
    expect(await slash('/clear')).toBe('\x1b[2J\x1b[3J\x1b[H');
  });
});
