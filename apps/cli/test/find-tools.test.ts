import { execFile } from 'node:child_process';
import { join } from 'node:path';
import { PassThrough, Readable } from 'node:stream';
import { promisify } from 'node:util';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { Io } from '../src/io.js';
import { styler } from '@birdie/terminal/style';
import { approvalBox } from '../src/repl/approval.js';
import { bootRepl } from '../src/repl/boot.js';
import { runSlash } from '../src/repl/slash.js';
import { BIN, type Sandbox, sandbox, scripted } from './helpers/env.js';
import { manyTools } from './helpers/many-tools.js';

const exec = promisify(execFile);

let box: Sandbox;
let skills: string;

beforeEach(async () => {
  box = await sandbox(scripted('find-tools.json'));
  skills = join(box.dir.path, 'many-skills');
  await manyTools(skills);
});
afterEach(async () => {
  await box.cleanup();
});

describe('many tools: find_tools in the CLI', { timeout: 60_000 }, () => {
  it('`birdie run --json` prints a tool-selection event per model call; the found tool is bound next', async () => {
    const { stdout } = await exec(
      process.execPath,
      [BIN, 'run', '--json', '--approval', 'never', '--skills-dir', skills, 'what is the ACME share price?'],
      { cwd: box.cwd, env: box.env },
    );
    const events = stdout
      .split('\n')
      .filter(Boolean)
      .map((line) => JSON.parse(line) as Record<string, any>);
    const selections = events.filter((e) => e.type === 'tool-selection');
    expect(selections).toHaveLength(3);
    for (const s of selections) expect(Object.keys(s).sort()).toEqual(['bound', 'found', 'held', 'type']);
    expect(selections[0]?.bound).toContain('find_tools');
    expect(selections[0]?.bound).not.toContain('stock_quote');
    expect(selections[0]?.held).toBeGreaterThan(20);
    expect(selections[1]?.found).toEqual(['stock_quote']);
    expect(selections[1]?.bound).toContain('stock_quote');
    const ends = events.filter((e) => e.type === 'tool-end');
    expect(ends.map((e) => [e.name, e.ok])).toEqual([
      ['find_tools', true],
      ['stock_quote', true],
    ]);
    expect(ends[1]?.output).toBe('quote ACME: 42');
  });

  it('`birdie config set tool_budget 0` gives every tool to every call again; a low tool_budget holds more back', async () => {
    const json = async (args: string[]) =>
      (await exec(process.execPath, [BIN, ...args], { cwd: box.cwd, env: box.env })).stdout
        .split('\n')
        .filter(Boolean)
        .map((line) => JSON.parse(line) as Record<string, any>);
    const runArgs = ['run', '--json', '--approval', 'never', '--skills-dir', skills, 'hello'];
    await exec(process.execPath, [BIN, 'config', 'set', 'tool_budget', '0'], { cwd: box.cwd, env: box.env });
    expect((await json(runArgs)).filter((e) => e.type === 'tool-selection')).toEqual([]);
    await exec(process.execPath, [BIN, 'config', 'set', 'tool_budget', '61'], { cwd: box.cwd, env: box.env });
    await exec(process.execPath, [BIN, 'config', 'set', 'tool_budget_chars', '1000'], {
      cwd: box.cwd,
      env: box.env,
    });
    const [selection] = (await json(runArgs)).filter((e) => e.type === 'tool-selection');
    // 60 tools fit 61, but not 1,000 characters of definitions.
    expect(selection?.bound).toEqual(['find_tools']);
  });

  it('/info says which tools are bound and that find_tools searches the rest', async () => {
    const output: string[] = [];
    const stdout = new PassThrough();
    stdout.on('data', (c: Buffer) => output.push(c.toString('utf8')));
    const io: Io = { stdout, stderr: stdout, stdin: Readable.from([]), env: box.env, cwd: box.cwd };
    const state = await bootRepl(
      io,
      { 'skills-dir': [skills] },
      { approval: 'ask', style: styler(stdout, box.env), resumeId: undefined },
    );
    try {
      await runSlash(state, '/info');
      await new Promise((r) => setImmediate(r));
      const info = output.join('');
      expect(info).toMatch(
        /tools\s+\d+ of \d+ bound \(over the tool budget; find_tools searches the other \d+\)/,
      );
      expect(info).toContain('find_tools');
    } finally {
      state.watcher?.close();
      await state.rt.close();
    }
  });

  it('the approval question says when find_tools added the tool', async () => {
    const request = {
      id: 'c1',
      digest: 'd',
      tool: 'stock_quote',
      skill: 'markets',
      args: { symbol: 'ACME' },
      description: 'markets › stock_quote({"symbol":"ACME"})',
      reason: 'mode-always' as const,
    };
    const plain = await approvalBox(request);
    const added = await approvalBox({ ...request, addedBy: 'find_tools' });
    expect(plain.lines.map((l) => l.text).join('\n')).not.toContain('find_tools');
    expect(added.lines[0]?.text).toBe(
      'Added by find_tools: the model searched for this tool; it was not among those it was given.',
    );
  });
});
