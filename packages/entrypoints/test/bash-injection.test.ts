import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdir, readdir, readFile, rm, writeFile as writeFileText } from 'node:fs/promises';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { resolveEntrypoint } from '../src/index.js';
import { budgetFor, inBatches, tempDir } from './helpers.js';
import { hostileStrings, isFileName, MARKER } from './hostile-strings.js';

let dir: string;
let values: string[];
let absoluteMarker: string;

beforeAll(async () => {
  dir = await tempDir();
  absoluteMarker = join(dir, 'ABSOLUTE-PWNED');
  values = hostileStrings(absoluteMarker);
});

/**
 * A program on a private PATH that records its argv (NUL-terminated) in the file named by $PROBE_LOG and its
 * stdin in $PROBE_LOG.in: the files exist only if the program ran.
 */
async function recordingProgram(name: string): Promise<{ bin: string; log: string }> {
  const bin = join(dir, `bin-${name}`);
  await mkdir(bin, { recursive: true });
  const script = `#!/bin/bash\nprintf '%s\\0' "$@" > "$PROBE_LOG"\ncat > "$PROBE_LOG.in"\n`;
  await writeFileText(join(bin, name), script, { mode: 0o755 });
  return { bin, log: join(dir, `${name}-log`) };
}

function noInjection(where: string) {
  expect(existsSync(join(where, MARKER)), `relative marker in ${where}`).toBe(false);
  expect(existsSync(absoluteMarker), 'absolute marker').toBe(false);
}

/** Each test below runs one bash (and a probe) per hostile value: its budget grows with the corpus. */
const HOSTILE_RUNS = hostileStrings('/x').length;

describe('bash: hostile arguments stay data', { timeout: budgetFor(HOSTILE_RUNS) }, () => {
  it('has a corpus of at least 200 distinct hostile strings', () => {
    expect(new Set(values).size).toBeGreaterThanOrEqual(200);
  });

  it('would notice an injection: naive string substitution does create the markers', async () => {
    const work = join(dir, 'control');
    await mkdir(work);
    const naive = (v: string) =>
      new Promise<void>((resolve) => {
        const child = spawn('bash', ['-c', `echo "${v}" > out`], { cwd: work, stdio: 'ignore' });
        child.on('close', () => resolve());
      });
    await naive(`$(touch ${MARKER})`);
    await naive(`"; touch ${absoluteMarker}; "`);
    expect(existsSync(join(work, MARKER))).toBe(true);
    expect(existsSync(absoluteMarker)).toBe(true);
    await rm(absoluteMarker);
  });

  it("delivers every value byte for byte in bare, \"…\", '…', $'…' and glued positions", async () => {
    const probe = resolveEntrypoint(
      `bash:printf '%s\\0' {v} "{v}" '{v}' x{v}y "a{v}b" 'a{v}b' $'<{v}>' > {out}`,
      { skillDir: dir },
    );
    const work = join(dir, 'probe');
    await mkdir(work);
    await inBatches(values, 8, async (v, index) => {
      const out = join(dir, `probe-${index}.out`);
      await probe.run({ v, out }, { cwd: work });
      const words = (await readFile(out, 'utf8')).split('\0');
      expect(words.pop()).toBe('');
      expect(words, `value #${index} ${JSON.stringify(v.slice(0, 80))}`).toEqual([
        v,
        v,
        v,
        `x${v}y`,
        `a${v}b`,
        `a${v}b`,
        `<${v}>`,
      ]);
    });
    noInjection(work);
  });

  it('runs the original write_file template `echo "{content}" > {path}` without executing anything', async () => {
    const writeFile = resolveEntrypoint('bash:echo "{content}" > {path}', { skillDir: dir });
    await inBatches(values, 8, async (v, index) => {
      const work = join(dir, `write-${index}`);
      await mkdir(work);
      const path = isFileName(v) ? v : `file-${index}`;
      const run = writeFile.run({ content: v, path }, { cwd: work });
      if (/^-[neE]+$/.test(v)) {
        // echo would take the word as its option and drop it: refused before anything ran.
        await expect(run, `value #${index}`).rejects.toMatchObject({ code: 'bad-argument' });
        expect(await readdir(work)).toEqual([]);
      } else {
        await run;
        // `> {path}` is a redirection target: '--version' or '-' there is a file name, never an option.
        expect(await readdir(work), `value #${index}`).toEqual([path]);
        expect(await readFile(join(work, path), 'utf8')).toBe(`${v}\n`);
      }
      noInjection(work);
    });
  });

  it('refuses values starting with "-" where a program reads options, and never starts it', async () => {
    const { bin, log } = await recordingProgram('probe');
    const exposed = resolveEntrypoint('bash:probe -x {v}', { skillDir: dir });
    const dashed = values.filter((v) => v.startsWith('-'));
    expect(dashed.length).toBeGreaterThanOrEqual(20);
    await inBatches(values, 8, async (v, index) => {
      const run = exposed.run(
        { v },
        { env: { PATH: `${bin}:${process.env.PATH}`, PROBE_LOG: `${log}-${index}` } },
      );
      if (v.startsWith('-')) {
        await expect(run, `value #${index}`).rejects.toMatchObject({ code: 'bad-argument' });
        expect(existsSync(`${log}-${index}`), 'the program never ran').toBe(false);
      } else {
        await run;
        expect((await readFile(`${log}-${index}`, 'utf8')).split('\0')).toEqual(['-x', v, '']);
      }
    });
    noInjection(dir);
  });

  it('delivers every value byte for byte where no program reads it as an option', async () => {
    const { bin, log } = await recordingProgram('probe');
    const safe = resolveEntrypoint('bash:probe ./{v} --v={v} x{v} "a {v}" -- {v} "{v}" \'{v}\' <<< {v}', {
      skillDir: dir,
    });
    const work = join(dir, 'safe');
    await mkdir(work);
    await inBatches(values, 8, async (v, index) => {
      await safe.run(
        { v },
        { cwd: work, env: { PATH: `${bin}:${process.env.PATH}`, PROBE_LOG: `${log}-${index}` } },
      );
      const args = (await readFile(`${log}-${index}`, 'utf8')).split('\0');
      expect(args, `value #${index}`).toEqual([`./${v}`, `--v=${v}`, `x${v}`, `a ${v}`, '--', v, v, v, '']);
      expect(await readFile(`${log}-${index}.in`, 'utf8'), 'the here-string').toBe(`${v}\n`);
    });
    noInjection(work);
  });

  it('keeps values intact inside $( … ), here-documents and appends', async () => {
    const ep = resolveEntrypoint(
      'bash:printf \'%s\\0\' "$(printf %s {v})" >> {out}\ncat <<EOF >> {out}\n[{v}]\nEOF',
      { skillDir: dir },
    );
    const work = join(dir, 'nested');
    await mkdir(work);
    const sample = values.filter((v, k) => k % 3 === 0 && !v.endsWith('\n') && v.length < 5000);
    await inBatches(sample, 8, async (v, index) => {
      const out = join(dir, `nested-${index}.out`);
      await ep.run({ v, out }, { cwd: work });
      const text = await readFile(out, 'utf8');
      expect(text).toBe(`${v}\0[${v}]\n`);
    });
    noInjection(work);
  });
});
