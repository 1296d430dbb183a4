import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { NATIVE, RUNTIME_REQUIRED } from '../build/rolldown.config.mjs';
import { CLI_ROOT } from './helpers/env.js';

type Manifest = { dependencies?: Record<string, string>; files?: string[] };
const read = (path: string) => JSON.parse(readFileSync(path, 'utf8')) as Manifest;
const cli = read(join(CLI_ROOT, 'package.json'));
const skills = read(join(CLI_ROOT, '..', '..', 'skills', 'package.json'));

describe("the CLI package's manifest", () => {
  it('depends at run time only on what the bundle leaves out and on what the bundled skills import', () => {
    // Everything else (the @birdie packages included) is bundled into dist/, so it is a devDependency: an installed
    // birdie needs no other package of this workspace from the registry.
    const expected = [...NATIVE, ...RUNTIME_REQUIRED, ...Object.keys(skills.dependencies ?? {})].sort();
    expect(Object.keys(cli.dependencies ?? {}).sort()).toEqual(expected);
  });

  it("gives the bundled skills' dependencies the skills' own ranges", () => {
    for (const [name, range] of Object.entries(skills.dependencies ?? {})) {
      expect({ name, range: cli.dependencies?.[name] }).toEqual({ name, range });
    }
  });

  it('ships dist (with dist/skills) and agents', () => {
    expect(cli.files).toEqual(['dist', 'agents']);
  });
});
