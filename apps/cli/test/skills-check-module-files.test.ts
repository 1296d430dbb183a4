import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { birdie } from './helpers/birdie-process.js';
import { type Sandbox, sandbox } from './helpers/env.js';

// Reported by a skill author: `birdie skills check` passed `node:` and `python:` tools whose module file is not in the
// skill folder (a typo, a file not yet written, a Python standard module named instead of the skill's own); each failed
// only when called (module-not-found, path-escape). The check now looks for the file (without importing anything).

let box: Sandbox;
let skill: string;

beforeAll(async () => {
  box = await sandbox();
  skill = join(box.dir.path, 'mods');
  await mkdir(join(skill, 'pkg'), { recursive: true });
  await writeFile(join(skill, 'tools.mjs'), 'export function ok() { return "ok"; }\n');
  await writeFile(join(skill, 'helpers.py'), 'def f():\n    return 1\n');
  await writeFile(join(skill, 'pkg', '__init__.py'), '');
  await writeFile(join(skill, 'pkg', 'inner.py'), 'def g():\n    return 2\n');
  await writeFile(
    join(skill, 'SKILL.md'),
    `---
name: mods
description: Module entrypoints, some missing
---

## Tools

### good_node
description: x
entrypoint: node:tools.mjs#ok

### good_python
description: x
entrypoint: python:helpers.f

### good_package
description: x
entrypoint: python:pkg.inner.g

### missing_node
description: x
entrypoint: node:nope.mjs#f

### missing_python
description: x
entrypoint: python:nope.f

### stdlib_python
description: x
entrypoint: python:json.dumps
`,
  );
});

afterAll(async () => {
  await box?.cleanup();
});

describe('birdie skills check and module files', { timeout: 60_000 }, () => {
  it('reports each node: and python: tool whose module is not in the skill folder, at its entrypoint', async () => {
    const result = await birdie(['skills', 'check', skill], { env: box.env, cwd: box.cwd });
    expect(result.code).toBe(1);
    const out = result.stdout + result.stderr;
    expect(out).toMatch(
      /SKILL\.md:22:\d+\s+error\s+Tool `missing_node`: node:nope\.mjs: no file nope\.mjs in the skill folder/,
    );
    expect(out).toMatch(
      /SKILL\.md:26:\d+\s+error\s+Tool `missing_python`: python:nope\.f: no module nope in the skill folder \(nope\.py or nope\/__init__\.py\)/,
    );
    expect(out).toMatch(/Tool `stdlib_python`: python:json\.dumps: no module json in the skill folder/);
    for (const fine of ['good_node', 'good_python', 'good_package']) expect(out).not.toContain(`\`${fine}\``);
  });
});
