import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { tempDir } from '../test/helpers.js';
import { loadRegistry } from './registry.js';

const skill = (tools: string) => `---
name: counter
description: Counts
---

## Tools

### next
description: The next number
entrypoint: bash:n={n}; echo $(( n + 1 ))
schema:
  type: object
  properties:
    n:
      type: string
  required: [n]
${tools}`;

const safeTool = `
### show
description: Show a file
entrypoint: bash:cat -- {file}
schema:
  type: object
  properties:
    file:
      type: string
`;

const unknownPlaceholder = `
### greet
description: Greet
entrypoint: bash:echo hello {name}
schema:
  type: object
  properties:
    who:
      type: string
`;

describe('entrypoints are checked when skills load', () => {
  it("refuses a tool whose value could reach code, at the placeholder, and keeps the skill's other tools", async (t) => {
    const root = await tempDir(t);
    await mkdir(join(root, 'counter'));
    const file = join(root, 'counter', 'SKILL.md');
    await writeFile(file, skill(safeTool + unknownPlaceholder));
    const registry = await loadRegistry({ dirs: [root] });
    const snapshot = registry.current();
    expect(snapshot.getSkill('counter')?.tools.map((tool) => tool.name)).toEqual(['show']);
    expect(snapshot.getTool('next')).toBeUndefined();
    const refused = snapshot.messages.filter((m) => m.source === 'registry');
    expect(refused.map((m) => [m.ruleId, m.fatal, m.file])).toEqual([
      ['invalid-entrypoint', true, file],
      ['unknown-placeholder', true, file],
    ]);
    expect(refused[0]?.reason).toMatch(/^Tool `next` is refused: .*arithmetic/);
    expect(refused[1]?.reason).toContain('{name}');
    // At the place bash would evaluate the value: line 10 is `entrypoint: bash:n={n}; echo $(( n + 1 ))`, and the
    // arithmetic `$((` starts at column 30.
    expect([refused[0]?.line, refused[0]?.column]).toEqual([10, 30]);
  });

  it('checks a tool with its entrypoint settings: a grpc: schema that does not match the proto message', async (t) => {
    const root = await tempDir(t);
    await mkdir(join(root, 'weather'));
    await writeFile(
      join(root, 'weather', 'weather.proto'),
      'syntax = "proto3";\npackage w;\nmessage Req { string city = 1; int32 days = 2; }\nmessage Res { string text = 1; }\nservice W { rpc Get(Req) returns (Res); }\n',
    );
    const file = join(root, 'weather', 'SKILL.md');
    const tool = (name: string, daysType: string) => `
### ${name}
description: Forecast
entrypoint: grpc:localhost:50051/w.W/Get
proto: weather.proto
schema:
  type: object
  properties:
    city: { type: string }
    days: { type: ${daysType} }
`;
    await writeFile(
      file,
      `---\nname: weather\ndescription: Weather\n---\n\n## Tools\n${tool('good', 'integer')}${tool('bad', 'string')}`,
    );
    const snapshot = (await loadRegistry({ dirs: [root] })).current();
    expect(snapshot.getSkill('weather')?.tools.map((t) => t.name)).toEqual(['good']);
    expect(snapshot.getTool('good')?.tool.proto).toBe('weather.proto');
    const refused = snapshot.messages.filter((m) => m.source === 'registry');
    expect(refused.map((m) => [m.ruleId, m.line, m.column])).toEqual([
      // line 20: `entrypoint: grpc:localhost:50051/w.W/Get`; the method name starts at column 38
      ['schema-mismatch', 20, 38],
    ]);
    expect(refused[0]?.reason).toContain(
      'property "days" has type string in the schema, but w.Req.days is int32',
    );
  });
});

describe('commands that run a value as code', () => {
  it('load with a code-taking-command warning at the command, naming the program and the option', async (t) => {
    const root = await tempDir(t);
    await mkdir(join(root, 'runner'));
    const file = join(root, 'runner', 'SKILL.md');
    await writeFile(
      file,
      `---
name: runner
description: Runs things
---

## Tools

### each
description: Echo each match
entrypoint: bash:find . -name {n} -exec sh -c 'echo {n}' \\;
schema:
  type: object
  properties:
    n: { type: string }

### quiet
description: Echo, the author vouches for it
entrypoint: bash:perl -e 'print @ARGV' -- {n}
approval: never
schema:
  type: object
  properties:
    n: { type: string }
`,
    );
    const snapshot = (await loadRegistry({ dirs: [root] })).current();
    expect(snapshot.getSkill('runner')?.tools.map((tool) => tool.name)).toEqual(['each', 'quiet']);
    const warned = snapshot.messages.filter((m) => m.source === 'registry');
    expect(warned.map((m) => [m.ruleId, m.fatal, m.file, m.line, m.column])).toEqual([
      // line 10: `entrypoint: bash:find . -name {n} -exec sh -c 'echo {n}' \;`; `-c` is at column 44
      ['code-taking-command', false, file, 10, 44],
      ['code-taking-command', false, file, 18, 23],
    ]);
    expect(warned[0]?.reason).toMatch(/^Tool `each` runs a value as code: .*`sh -c`.*approval: never/);
    expect(warned[1]?.reason).toMatch(/`perl -e`.*`approval: never`: its calls run without asking/);
  });
});
