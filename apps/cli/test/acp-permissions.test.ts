import { existsSync } from 'node:fs';
import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { methods, type RequestPermissionRequest } from '@agentclientprotocol/sdk';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { type AcpProcess, outline, startAcp, stopAcp } from './helpers/acp-client.js';
import { CLI_ROOT, type Sandbox, sandbox, TEST_SKILLS } from './helpers/env.js';

const BUNDLED = join(CLI_ROOT, '..', '..', 'skills');

let box: Sandbox;
const running: AcpProcess[] = [];
beforeEach(async () => {
  box = await sandbox({ BIRDIE_BUNDLED_SKILLS: BUNDLED });
});
afterEach(async () => {
  stopAcp(running);
  await box.cleanup();
});

/** A scripted model for the birdie behind `birdie acp`: replies picked by the prompt's words. */
async function script(replies: unknown[]): Promise<NodeJS.ProcessEnv> {
  const file = join(box.dir.path, `script-${Math.random().toString(36).slice(2)}.json`);
  await writeFile(file, JSON.stringify({ replies }));
  return { LLM_VENDOR: 'scripted', LLM_SCRIPT: file };
}

/** The user's own approval rules, in birdie's settings file (as `birdie config add permissions.ask …` writes them). */
async function askRules(...patterns: string[]): Promise<void> {
  await writeFile(
    join(box.home, 'config.json'),
    JSON.stringify({ settings: { permissions: { ask: patterns } } }),
  );
}

async function session(proc: AcpProcess): Promise<string> {
  await proc.initialize();
  const { sessionId } = await proc.agent.request(methods.agent.session.new, { cwd: box.cwd, mcpServers: [] });
  return sessionId;
}

const prompt = (proc: AcpProcess, sessionId: string, text: string) =>
  proc.agent.request(methods.agent.session.prompt, { sessionId, prompt: [{ type: 'text', text }] });

/** The permission requests the editor was sent, by the command or path of the call they ask about. */
function asked(proc: AcpProcess): string[] {
  return proc.log.flatMap((entry) => {
    if (entry.kind !== 'permission') return [];
    const input = (entry.request.toolCall.rawInput ?? {}) as { command?: string; path?: string };
    return [input.command ?? input.path ?? '?'];
  });
}

/** Selects the option of this kind-id for calls whose input matches `match`, and rejects the others. */
function answerBy(pick: (input: string) => string): (request: RequestPermissionRequest) => {
  outcome: { outcome: 'selected'; optionId: string };
} {
  return (request) => {
    const input = (request.toolCall.rawInput ?? {}) as { command?: string; path?: string };
    return { outcome: { outcome: 'selected', optionId: pick(input.command ?? input.path ?? '') } };
  };
}

describe('birdie acp: an ask rule always asks, whatever the session allowed (report defect 1)', () => {
  it('"allow run_command(touch *) for this session" on a harmless call does not lift `run_command(git push *)`: later prompts and the same batch ask', async () => {
    await askRules('run_command(git push *)');
    const env = await script([
      { match: 'first', tool_calls: [{ name: 'run_command', args: { command: 'touch hello.txt' } }] },
      { match: 'first', text: 'Said hello.' },
      {
        match: 'push',
        tool_calls: [
          { name: 'run_command', args: { command: 'touch again.txt' } },
          { name: 'run_command', args: { command: 'git push origin main; touch PUSHED' } },
        ],
      },
      { match: 'push', text: 'Tried to push.' },
    ]);
    const proc = startAcp(box, ['--skills-dir', TEST_SKILLS], env);
    running.push(proc);
    const sessionId = await session(proc);
    proc.answer = answerBy((command) => (command.startsWith('git push') ? 'reject' : 'allow-pattern'));
    expect((await prompt(proc, sessionId, 'first')).stopReason).toBe('end_turn');
    expect(asked(proc)).toEqual(['touch hello.txt']);

    proc.log.length = 0;
    expect((await prompt(proc, sessionId, 'push')).stopReason).toBe('end_turn');
    // The grant runs the harmless call unasked; the user's ask rule still asks about the push, which is rejected.
    expect(asked(proc)).toEqual(['git push origin main; touch PUSHED']);
    expect(existsSync(join(box.cwd, 'PUSHED'))).toBe(false);
    expect(existsSync(join(box.cwd, 'again.txt'))).toBe(true);
    expect(await proc.end()).toBe(0);
  });

  it('"allow run_command(touch *) for this session" given in a batch does not answer a later call of that batch an ask rule asks about', async () => {
    await askRules('run_command(git push *)');
    const env = await script([
      {
        match: 'both',
        tool_calls: [
          { name: 'run_command', args: { command: 'touch hello.txt' } },
          { name: 'run_command', args: { command: 'git push origin main; touch PUSHED' } },
        ],
      },
      { match: 'both', text: 'Done.' },
    ]);
    const proc = startAcp(box, ['--skills-dir', TEST_SKILLS], env);
    running.push(proc);
    const sessionId = await session(proc);
    proc.answer = answerBy((command) => (command.startsWith('git push') ? 'reject' : 'allow-pattern'));
    expect((await prompt(proc, sessionId, 'both')).stopReason).toBe('end_turn');
    expect(asked(proc)).toEqual(['touch hello.txt', 'git push origin main; touch PUSHED']);
    expect(existsSync(join(box.cwd, 'PUSHED'))).toBe(false);
    expect(existsSync(join(box.cwd, 'hello.txt'))).toBe(true);
  });

  it('a `write_file(path=.github/**)` ask rule asks after "allow write_file for this session", and the question names the rule (defect 5)', async () => {
    await askRules('write_file(path=.github/**)');
    await mkdir(join(box.cwd, '.github'));
    const env = await script([
      { match: 'notes', tool_calls: [{ name: 'write_file', args: { path: 'notes.txt', content: 'n' } }] },
      { match: 'notes', text: 'Wrote notes.' },
      { match: 'ci', tool_calls: [{ name: 'write_file', args: { path: '.github/x.yml', content: 'x' } }] },
      { match: 'ci', text: 'Wrote ci.' },
    ]);
    const proc = startAcp(box, ['--enable', 'filesystem'], env);
    running.push(proc);
    const sessionId = await session(proc);
    // What the editor had been told about the call when its permission dialog opened (the request itself last).
    const seenWhenAsked: string[][] = [];
    proc.answer = (request) => {
      seenWhenAsked.push(outline(proc));
      const path = (request.toolCall.rawInput as { path?: string }).path;
      return {
        outcome: { outcome: 'selected', optionId: path === 'notes.txt' ? 'allow-session' : 'reject' },
      };
    };
    await prompt(proc, sessionId, 'notes');
    expect(asked(proc)).toEqual(['notes.txt']);
    const first = proc.log.find((e) => e.kind === 'permission');
    expect(first?.kind === 'permission' && first.request.toolCall._meta).toBeUndefined();

    proc.log.length = 0;
    await prompt(proc, sessionId, 'ci');
    expect(asked(proc)).toEqual(['.github/x.yml']);
    expect(existsSync(join(box.cwd, '.github', 'x.yml'))).toBe(false);
    // The question itself says which rule asks, before the user answers: in its title and in `_meta.birdie.rule`.
    const question = proc.log.find((e) => e.kind === 'permission');
    const toolCall = question?.kind === 'permission' ? question.request.toolCall : undefined;
    expect(toolCall?.title).toContain(
      `(asked by the rule write_file(path=.github/**), user ${join(box.home, 'config.json')})`,
    );
    expect(toolCall?._meta).toEqual({
      birdie: {
        rule: {
          effect: 'ask',
          pattern: 'write_file(path=.github/**)',
          source: { kind: 'user', name: join(box.home, 'config.json') },
        },
      },
    });
    expect(seenWhenAsked.at(-1)).toEqual(['tool_call write_file pending', 'permission write_file']);
  });
});

describe('birdie acp: a question an ask rule asks offers no "allow for this session"', () => {
  it('only Allow once and Reject: no session grant could answer the next such call, so none is offered', async () => {
    await askRules('run_command(git push *)');
    const env = await script([
      { match: 'push', tool_calls: [{ name: 'run_command', args: { command: 'git push origin main' } }] },
      { match: 'push', text: 'Tried.' },
      { match: 'plain', tool_calls: [{ name: 'run_command', args: { command: 'touch plain.txt' } }] },
      { match: 'plain', text: 'Touched.' },
    ]);
    const proc = startAcp(box, ['--skills-dir', TEST_SKILLS], env);
    running.push(proc);
    const sessionId = await session(proc);
    proc.answer = answerBy(() => 'reject');
    await prompt(proc, sessionId, 'push');
    await prompt(proc, sessionId, 'plain');
    const offered = proc.log.flatMap((e) =>
      e.kind === 'permission' ? [e.request.options.map((o) => o.optionId).join(' ')] : [],
    );
    // The ask rule's question, then a plain raw command's (whose pattern the session may still be allowed).
    expect(offered).toEqual(['allow-once reject', 'allow-once allow-pattern reject']);
    expect(await proc.end()).toBe(0);
  });
});

describe('birdie acp: session/cancel ends a turn whose permission request is open (report defect 4)', () => {
  it('the prompt answers cancelled without the editor answering the request, and the session takes the next prompt', async () => {
    const env = await script([
      { match: 'go', tool_calls: [{ name: 'run_command', args: { command: 'touch RAN' } }] },
      { match: 'go', text: 'after' },
      { text: 'Hello again.' },
    ]);
    const proc = startAcp(box, ['--skills-dir', TEST_SKILLS], env);
    running.push(proc);
    const sessionId = await session(proc);
    let opened: () => void = () => {};
    const dialog = new Promise<void>((resolve) => {
      opened = resolve;
    });
    // The editor's dialog was dismissed: the request is never answered.
    proc.answer = () => {
      opened();
      return new Promise(() => {});
    };
    const turn = prompt(proc, sessionId, 'go');
    await dialog;
    await proc.agent.notify(methods.agent.session.cancel, { sessionId });
    expect((await turn).stopReason).toBe('cancelled');
    expect(existsSync(join(box.cwd, 'RAN'))).toBe(false);
    expect(outline(proc).at(-1)).toBe('tool_call_update run_command failed');

    proc.log.length = 0;
    expect((await prompt(proc, sessionId, 'hello')).stopReason).toBe('end_turn');
    expect(outline(proc)).toContain('text Hello again.');
    expect(await proc.end()).toBe(0);
  });
});

describe('birdie acp: a raw shell command offers its pattern for the session, never the whole tool', () => {
  const options = (proc: AcpProcess) =>
    proc.log.flatMap((e) =>
      e.kind === 'permission' ? [e.request.options.map((o) => `${o.optionId}:${o.name}`)] : [],
    );

  it('"Allow run_command(touch *) for this session" lets later touch commands run unasked, and nothing else', async () => {
    const env = await script([
      { match: 'first', tool_calls: [{ name: 'run_command', args: { command: 'touch one.txt' } }] },
      { match: 'first', text: 'One.' },
      {
        match: 'second',
        tool_calls: [
          { name: 'run_command', args: { command: 'touch two.txt' } },
          { name: 'run_command', args: { command: 'rm one.txt' } },
        ],
      },
      { match: 'second', text: 'Two.' },
    ]);
    const proc = startAcp(box, ['--skills-dir', TEST_SKILLS], env);
    running.push(proc);
    const sessionId = await session(proc);
    proc.answer = answerBy((command) => (command.startsWith('touch') ? 'allow-pattern' : 'reject'));
    await prompt(proc, sessionId, 'first');
    expect(options(proc)).toEqual([
      ['allow-once:Allow once', 'allow-pattern:Allow run_command(touch *) for this session', 'reject:Reject'],
    ]);
    expect(existsSync(join(box.cwd, 'one.txt'))).toBe(true);

    proc.log.length = 0;
    await prompt(proc, sessionId, 'second');
    // The pattern ran `touch two.txt` unasked; another command of the same tool is asked about (and rejected).
    expect(asked(proc)).toEqual(['rm one.txt']);
    expect(existsSync(join(box.cwd, 'two.txt'))).toBe(true);
    expect(existsSync(join(box.cwd, 'one.txt'))).toBe(true);
    expect(await proc.end()).toBe(0);
  });

  it('an editor answering "allow-session" at a raw command anyway allows that call once: the next command asks', async () => {
    const env = await script([
      { match: 'first', tool_calls: [{ name: 'run_command', args: { command: 'touch one.txt' } }] },
      { match: 'first', text: 'One.' },
      { match: 'second', tool_calls: [{ name: 'run_command', args: { command: 'touch two.txt' } }] },
      { match: 'second', text: 'Two.' },
    ]);
    const proc = startAcp(box, ['--skills-dir', TEST_SKILLS], env);
    running.push(proc);
    const sessionId = await session(proc);
    proc.answer = answerBy(() => 'allow-session');
    await prompt(proc, sessionId, 'first');
    expect(existsSync(join(box.cwd, 'one.txt'))).toBe(true);
    proc.log.length = 0;
    proc.answer = answerBy(() => 'reject');
    await prompt(proc, sessionId, 'second');
    expect(asked(proc)).toEqual(['touch two.txt']);
    expect(existsSync(join(box.cwd, 'two.txt'))).toBe(false);
    expect(await proc.end()).toBe(0);
  });

  it('a compound command, with no pattern to offer, offers Allow once and Reject only', async () => {
    const env = await script([
      {
        match: 'both',
        tool_calls: [{ name: 'run_command', args: { command: 'touch a.txt && touch b.txt' } }],
      },
      { match: 'both', text: 'Both.' },
    ]);
    const proc = startAcp(box, ['--skills-dir', TEST_SKILLS], env);
    running.push(proc);
    const sessionId = await session(proc);
    proc.answer = answerBy(() => 'reject');
    await prompt(proc, sessionId, 'both');
    expect(options(proc)).toEqual([['allow-once:Allow once', 'reject:Reject']]);
    expect(await proc.end()).toBe(0);
  });
});
