import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { unpack } from '@birdie/store/backend';
import Database from 'better-sqlite3';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { birdie } from './helpers/birdie-process.js';
import { type Sandbox, sandbox } from './helpers/env.js';
import { Terminal } from './helpers/pty.js';
import {
  answers,
  jsonLines,
  type ShownMessage,
  STORE_SKILLS,
  script,
  sessionIdOf,
} from './helpers/sessions.js';

// Issue 21, defect 3: one byte flipped inside a stored record, where SQLite's integrity check sees nothing. The
// CLI names the damage (session, step, file) in one wording wherever it meets it, shows what reads fine, `doctor`
// finds it, `sessions repair` sets it aside, and the session goes on.

let box: Sandbox;
let terminal: Terminal | undefined;
beforeEach(async () => {
  box = await sandbox();
});
afterEach(async () => {
  terminal?.kill();
  terminal = undefined;
  await box.cleanup();
});

const literal = (text: string) => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
const cli = (args: string[], env: NodeJS.ProcessEnv = {}) =>
  birdie(args, { env: { ...box.env, ...env }, cwd: box.cwd });

/** One turn with a tool call (its effect: a line in effects.txt) and an answer; `--json` unless `text`. */
async function turn(token: string, id?: string, text = false) {
  const env = await script(box.dir.path, token, [
    {
      tool_calls: [
        { name: 'append_token', args: { delay: '0', token, file: join(box.dir.path, 'effects.txt') } },
      ],
    },
    { text: `answer ${token}` },
  ]);
  const session = id ? ['--session-id', id] : [];
  const json = text ? [] : ['--json'];
  return cli(['run', ...json, '--skills-dir', STORE_SKILLS, ...session, `prompt ${token}`], env);
}

function wholeTurn(token: string) {
  return [
    { role: 'human', content: `prompt ${token}` },
    { role: 'ai', content: '', tool_calls: [expect.objectContaining({ name: 'append_token' })] },
    { role: 'tool', content: `appended ${token}\n`, status: 'success' },
    { role: 'ai', content: `answer ${token}` },
  ].map((m) => expect.objectContaining(m));
}

/**
 * A copy of a stored record with one bit flipped where reading it must fail (from the middle on): the checksum covers
 * the decoded bytes, so a flip that deflate never reads decodes to the same record and is no damage at all.
 */
function flipVisibleBit(data: Uint8Array, mask: number): Buffer {
  const out = Buffer.from(data);
  for (let k = 0; k < out.length; k += 1) {
    const i = (Math.floor(out.length / 2) + k) % out.length;
    out[i] = (out[i] ?? 0) ^ mask;
    try {
      unpack(out);
    } catch {
      return out;
    }
    out[i] = (out[i] ?? 0) ^ mask;
  }
  throw new Error('no single-bit flip of this record changes what it reads');
}

/** Flips one bit in the middle of a record's bytes; SQLite's own check must still pass. */
function flip(file: string, table: 'cp_blobs' | 'cp_checkpoints', key: string, column: string, id: number) {
  const db = new Database(file);
  try {
    const row = db.prepare(`SELECT ${column} AS data FROM ${table} WHERE ${key} = ?`).get(id) as {
      data: Buffer;
    };
    const data = flipVisibleBit(row.data, 0x10);
    db.prepare(`UPDATE ${table} SET ${column} = ? WHERE ${key} = ?`).run(data, id);
    expect(db.pragma('integrity_check', { simple: true })).toBe('ok');
  } finally {
    db.close();
  }
}

const VICTIMS = {
  // The last value the third turn stored (its answer) and the body of its last step.
  'a stored value': { table: 'cp_blobs', key: 'id', column: 'data' },
  'a checkpoint body': { table: 'cp_checkpoints', key: 'seq', column: 'body' },
} as const;

describe('a flipped byte inside a stored record', { timeout: 120_000 }, () => {
  it.each(Object.keys(VICTIMS) as (keyof typeof VICTIMS)[])(
    'in %s: named everywhere in one wording, earlier turns shown, doctor finds it, repair recovers',
    async (which) => {
      const victim = VICTIMS[which];
      const first = await turn('d1');
      expect(first.code, first.stderr).toBe(0);
      const id = sessionIdOf(first.stdout);
      expect((await turn('d2', id)).code).toBe(0);
      expect((await turn('d3', id)).code).toBe(0);

      const file = join(box.home, 'birdie.db');
      const db = new Database(file, { readonly: true });
      const last = db.prepare(`SELECT max(${victim.key}) AS n FROM ${victim.table}`).get() as { n: number };
      db.close();
      flip(file, victim.table, victim.key, victim.column, last.n);

      // The same sentence wherever the damage is met: the store's message naming session, step and file, and the
      // birdie command that fixes it.
      const damage = new RegExp(
        `^birdie: session ${id} has a damaged record at step [0-9a-f-]{36} \\(checkpoint row \\d+\\) in ${literal(file)} \\(${victim.table}[,:] .+\\); it reads fine up to step [0-9a-f-]{36} \\(run \`birdie sessions repair ${id}\` to continue from that step, or \`birdie sessions delete ${id}\`\\)$`,
      );

      const shown = await cli(['sessions', 'show', id, '--json']);
      expect(shown.code).toBe(1);
      expect(shown.stderr).toMatch(new RegExp(`${damage.source.slice(0, -1)}\\n$`));
      const line = shown.stderr.trimEnd();
      const readable = jsonLines<ShownMessage>(shown.stdout);
      expect(readable.slice(0, 8)).toEqual([...wholeTurn('d1'), ...wholeTurn('d2')]);
      expect(readable.map((m) => m.content)).not.toContain('answer d3');

      const text = await cli(['sessions', 'show', id]);
      expect(text.code).toBe(1);
      expect(text.stderr).toBe(`${line}\n`);
      expect(text.stdout).toContain('› prompt d1');
      expect(text.stdout).toContain('answer d2');
      expect(text.stdout).not.toContain('answer d3');

      const run = await turn('d4', id, true);
      expect(run.code).toBe(1);
      expect(run.stderr.split('\n')).toContain(line);
      expect(run.stderr).not.toMatch(/ {4}at |SyntaxError|internal|Unterminated/);
      // --json carries the same parts as fields: the store's message and its own hint.
      const events = jsonLines<{ type: string; error?: { code: string; message: string } }>(
        (await turn('d4', id)).stdout,
      );
      expect(events.find((e) => e.type === 'error')?.error).toMatchObject({
        code: 'corrupt-record',
        message: line.replace(/^birdie: /, '').replace(/ \(run `birdie sessions repair .*$/, ''),
      });

      expect((await cli(['sessions', 'list', '--json'])).stdout).toContain(`"id":"${id}"`);

      const doctor = await cli(['doctor']);
      expect(doctor.code).toBe(1);
      expect(doctor.stdout).toContain('integrity check: ok');
      expect(doctor.stdout).toMatch(new RegExp(`session ${id} \\(user tester\\): 1 damaged record\\(s\\)`));
      expect(doctor.stdout).toContain('Problems found.');
      const report = JSON.parse((await cli(['doctor', '--json'])).stdout);
      expect(report).toMatchObject({ ok: false, integrity: ['ok'] });
      expect(report.damaged).toEqual([expect.objectContaining({ sessionId: id, table: victim.table })]);

      const repaired = await cli(['sessions', 'repair', id]);
      expect(repaired.code, repaired.stderr).toBe(0);
      const head = report.sessions[0].lastGoodCheckpointId as string;
      expect(repaired.stdout).toMatch(
        new RegExp(
          `^Repaired session ${id}: \\d+ record\\(s\\) set aside \\(damaged, or written after the damage\\); `,
        ),
      );
      expect(repaired.stdout).toContain(`it continues from step ${head}.`);
      expect((await cli(['doctor'])).code).toBe(0);

      const resumed = await turn('d5', id);
      expect(resumed.code, resumed.stderr).toBe(0);
      const after = await cli(['sessions', 'show', id, '--json']);
      expect(after).toMatchObject({ code: 0, stderr: '' });
      const messages = jsonLines<ShownMessage>(after.stdout);
      answers(messages);
      expect(messages.slice(0, 8)).toEqual([...wholeTurn('d1'), ...wholeTurn('d2')]);
      expect(messages.slice(-4)).toEqual(wholeTurn('d5'));
      // Repair forked the history; it ran no tool again.
      expect((await readFile(join(box.dir.path, 'effects.txt'), 'utf8')).split('\n')).toEqual([
        'd1',
        'd2',
        'd3',
        'd5',
        '',
      ]);
    },
  );
});

describe('a damaged record met inside the REPL', { timeout: 120_000 }, () => {
  it("the fix names the REPL's own command (/session delete), not the shell's, at resume and after a turn", async () => {
    const first = await turn('r1');
    expect(first.code, first.stderr).toBe(0);
    const id = sessionIdOf(first.stdout);
    expect((await turn('r2', id)).code).toBe(0);
    const file = join(box.home, 'birdie.db');
    const db = new Database(file, { readonly: true });
    const last = db.prepare('SELECT max(id) AS n FROM cp_blobs').get() as { n: number };
    db.close();
    flip(file, 'cp_blobs', 'id', 'data', last.n);

    const env = await script(box.dir.path, 'r3', [{ text: 'answer r3' }]);
    const t = new Terminal(['--session-id', id, '--skills-dir', STORE_SKILLS], {
      env: { ...box.env, ...env },
      cwd: box.cwd,
    });
    terminal = t;
    const hint = `(run \`birdie sessions repair ${id}\` in a shell to continue from that step, or \`/new\` then \`/session delete ${id}\`)`;
    // A turn's error is wrapped between words at the terminal's width: any space may be a line break.
    const wrapped = new RegExp(literal(hint).replace(/ /g, '\\s+'));
    await t.expect(`birdie: session ${id} has a damaged record`);
    await t.expect(wrapped);
    await t.submit('prompt r3');
    await t.expect(/session\s+\S+\s+has\s+a\s+damaged\s+record/);
    await t.expect(wrapped);
    expect(t.text).not.toMatch(/birdie\s+sessions\s+delete/);
    await t.submit('/quit');
    expect(await t.exited).toBe(0);
  });
});

/** Overwrites the b-tree page header of `table`'s root page: SQLite itself then calls the file malformed. */
function breakPage(file: string, table: string) {
  const db = new Database(file);
  const { rootpage } = db.prepare('SELECT rootpage FROM sqlite_master WHERE name = ?').get(table) as {
    rootpage: number;
  };
  const size = db.pragma('page_size', { simple: true }) as number;
  db.close();
  const bytes = readFileSync(file);
  bytes.fill(0xff, (rootpage - 1) * size, (rootpage - 1) * size + 64);
  writeFileSync(file, bytes);
}

describe('a page SQLite calls malformed', { timeout: 120_000 }, () => {
  it('is named once; every later command reads only; new and existing sessions are refused alike; doctor finds it', async () => {
    const first = await turn('m1');
    expect(first.code, first.stderr).toBe(0);
    const id = sessionIdOf(first.stdout);
    const file = join(box.home, 'birdie.db');
    breakPage(file, 'cp_blobs');

    const sqlite = 'SQLite: database disk image is malformed';
    const hint = `keep a copy of ${file}, then recover it with \`sqlite3 ${file} .recover | sqlite3 recovered.db\` and put recovered.db in its place, or move ${file} aside to start afresh`;
    const shown = await cli(['sessions', 'show', id]);
    expect(shown).toMatchObject({
      code: 1,
      stderr: `birdie: ${file} is malformed (${sqlite}); nothing more is written into it (${hint})\n`,
    });
    expect(existsSync(`${file}.malformed`)).toBe(true);

    const refused = `birdie: cannot write ${file}: it is malformed (${sqlite}) (${hint})`;
    for (const result of [await turn('m2', undefined, true), await turn('m3', id, true)]) {
      expect(result.code).toBe(1);
      expect(result.stderr).toBe(`${refused}\n`);
    }
    const list = await cli(['sessions', 'list', '--json']);
    expect(list).toMatchObject({ code: 0, stderr: '' });
    expect(jsonLines(list.stdout).map((s) => s.id)).toEqual([id]);

    const doctor = await cli(['doctor']);
    expect(doctor.code).toBe(1);
    expect(doctor.stdout).toContain(`read-only: it is malformed (${sqlite}) (${hint})`);
    expect(doctor.stdout).toContain('Problems found.');
  });
});
