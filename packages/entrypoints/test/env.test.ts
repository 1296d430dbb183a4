import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { resolveEntrypoint } from '../src/index.js';
import { tempDir } from './helpers.js';

let dir: string;
beforeAll(async () => {
  dir = await tempDir();
  await writeFile(
    join(dir, 'envtool.py'),
    'import os\ndef names():\n    return sorted(k for k in os.environ if k.startswith(("LC_", "LANG")))\n',
  );
});

/** Every locale variable glibc reads, set on the host, plus look-alikes that are not locale variables. */
const LOCALE = {
  LANG: 'C.UTF-8',
  LANGUAGE: 'en',
  LC_ALL: 'C.UTF-8',
  LC_CTYPE: 'C.UTF-8',
  LC_NUMERIC: 'C',
  LC_TIME: 'C',
  LC_COLLATE: 'C',
  LC_MONETARY: 'C',
  LC_MESSAGES: 'C',
  LC_PAPER: 'C',
  LC_NAME: 'C',
  LC_ADDRESS: 'C',
  LC_TELEPHONE: 'C',
  LC_MEASUREMENT: 'C',
  LC_IDENTIFICATION: 'C',
};
const IMPOSTORS = {
  LC_SECRET_TOKEN: 'canary-lc-secret',
  LC_API_KEY: 'canary-lc-key',
  LANG_SECRET: 'canary-lang-secret',
  LC_: 'canary-empty-suffix',
};
const saved = new Map<string, string | undefined>();

function setHostEnv(values: Record<string, string>) {
  for (const [key, value] of Object.entries(values)) {
    if (!saved.has(key)) saved.set(key, process.env[key]);
    process.env[key] = value;
  }
}

afterEach(() => {
  for (const [key, value] of saved) {
    if (value === undefined) delete process.env[key];
    else process.env[key] = value;
  }
  saved.clear();
});

describe('the locale part of the environment allowlist', () => {
  it('a bash: tool gets LANG, LANGUAGE, LC_ALL and the named LC_ categories, never other LC_* variables', async () => {
    setHostEnv({ ...LOCALE, ...IMPOSTORS });
    const out = await resolveEntrypoint('bash:env', { skillDir: dir }).run({});
    const names = out.output
      .split('\n')
      .filter(Boolean)
      .map((line) => line.slice(0, line.indexOf('=')));
    for (const name of Object.keys(LOCALE)) expect(names).toContain(name);
    for (const name of Object.keys(IMPOSTORS)) expect(names).not.toContain(name);
    for (const value of Object.values(IMPOSTORS)) expect(out.output).not.toContain(value);
  });

  it('a python: tool gets the same locale variables and no impostor', async () => {
    setHostEnv({ ...LOCALE, ...IMPOSTORS });
    const out = await resolveEntrypoint('python:envtool.names', { skillDir: dir }).run({});
    expect(JSON.parse(out.output)).toEqual(Object.keys(LOCALE).sort());
  });

  it('a variable the caller passes on purpose still arrives, whatever its name', async () => {
    setHostEnv(IMPOSTORS);
    const out = await resolveEntrypoint('bash:echo "$LC_SECRET_TOKEN"', { skillDir: dir }).run(
      {},
      { env: { LC_SECRET_TOKEN: 'declared by the skill' } },
    );
    expect(out.output).toBe('declared by the skill\n');
  });
});
