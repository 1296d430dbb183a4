import { once } from 'node:events';
import { mkdir, writeFile } from 'node:fs/promises';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { birdie } from './helpers/birdie-process.js';
import { type Sandbox, sandbox } from './helpers/env.js';

// Reported by a skill author:
// 1. An argument the tool's schema does not declare was let through: an `http:get` tool whose URL fixes
//    `format=json&limit=5` sent `…&format=xml&limit=100000` when the call added `format` and `limit` (every argument
//    not in the template goes to the query), and a `python:` tool failed with Python's TypeError. A schema that lists
//    its properties (and says nothing of others) now refuses the others, naming them and the ones it takes.
// 2. A tool whose schema has a default its own enum refuses answered a wrongly-typed argument with "The tool's schema
//    is broken (not your arguments), so no call can succeed", although a call giving the argument succeeds. The
//    default is blamed only when the call left that argument to it.

let box: Sandbox;
let server: Server;
const seen: string[] = [];

beforeAll(async () => {
  box = await sandbox();
  server = createServer((request, response) => {
    seen.push(request.url ?? '');
    response.end('ok');
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  const { port } = server.address() as AddressInfo;
  const skill = join(box.dir.path, 'skills', 'lookup');
  await mkdir(skill, { recursive: true });
  await writeFile(
    join(skill, 'SKILL.md'),
    `---
name: lookup
description: Looks things up
enabled_by_default: true
---

## Tools

### lit_get
description: Search by name.
entrypoint: http:get http://127.0.0.1:${port}/search?format=json&limit=5&name={name}
schema:
  type: object
  properties:
    name: {type: string}
  required: [name]

### units
description: Print a unit system.
entrypoint: bash:echo {u}
schema:
  type: object
  properties:
    u: {type: string, enum: [metric, imperial], default: kelvin}
`,
  );
});

afterAll(async () => {
  server?.close();
  await box?.cleanup();
});

const tool = (name: string, args: unknown) =>
  birdie(['tool', name, '--skills-dir', join(box.dir.path, 'skills'), '--args', JSON.stringify(args)], {
    env: box.env,
    cwd: box.cwd,
  });

describe('a tool call checked against its schema', { timeout: 60_000 }, () => {
  it('an argument the schema does not declare is refused, never sent', async () => {
    seen.length = 0;
    const result = await tool('lit_get', { name: 'x', format: 'xml', limit: '100000' });
    expect(result.code).not.toBe(0);
    expect(result.stderr + result.stdout).toContain('format: not an argument of this tool (it takes: name)');
    expect(result.stderr + result.stdout).toContain('limit: not an argument of this tool');
    expect(seen).toEqual([]);

    const fine = await tool('lit_get', { name: 'x' });
    expect(fine.code, fine.stderr).toBe(0);
    expect(seen).toEqual(['/search?format=json&limit=5&name=x']);
  });

  it('a wrong argument is the caller’s to fix even when another default of the schema is broken', async () => {
    const wrong = await tool('units', { u: 42 });
    expect(wrong.code).not.toBe(0);
    const text = wrong.stderr + wrong.stdout;
    expect(text).toContain('Invalid arguments');
    expect(text).not.toContain('no call can succeed');

    const fine = await tool('units', { u: 'metric' });
    expect(fine.code, fine.stderr).toBe(0);
    expect(fine.stdout).toContain('metric');

    const left = await tool('units', {});
    expect(left.stderr + left.stdout).toContain("The tool's schema is broken");
  });
});
