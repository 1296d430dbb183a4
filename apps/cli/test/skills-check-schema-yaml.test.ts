import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { birdie } from './helpers/birdie-process.js';
import { type Sandbox, sandbox } from './helpers/env.js';

// Exploratory report (author persona) #9 and #13: `skills check` catches schemas no call can satisfy, reports one
// diagnostic per YAML problem at the line of the mistake with a hint only where it helps, and lists every
// `mcp_server` mistake at once.

let box: Sandbox;
beforeEach(async () => {
  box = await sandbox();
});
afterEach(async () => {
  await box.cleanup();
});

async function skill(name: string, text: string): Promise<void> {
  const dir = join(box.cwd, 's', name);
  await mkdir(dir, { recursive: true });
  await writeFile(join(dir, 'SKILL.md'), text);
}

const cli = (args: string[]) => birdie(args, { env: box.env, cwd: box.cwd, timeoutMs: 60_000 });

const CONVERT = `---
name: conv
description: Convert a temperature.
---
## Tools

### convert
description: Convert a temperature between units.
entrypoint: bash:echo {value} {unit}
schema:
  type: object
  properties:
    value: { type: number }
    unit:
      type: string
      enum: [celsius, fahrenheit]
      default: kelvin
  required: [value]

### convert2
description: Same, with a typo in a type keyword.
entrypoint: bash:echo {value}
schema:
  type: object
  properties:
    value: { type: nubmer }
  required: [value]
`;

describe('schemas that can never validate (report #9)', { timeout: 90_000 }, () => {
  it('skills check reports a misspelt type and a default outside its enum, each at its line', async () => {
    await skill('conv', CONVERT);
    const check = await cli(['skills', 'check', 's']);
    expect(check.code).toBe(1);
    expect(check.stdout).toMatch(
      /s\/conv\/SKILL\.md:17:7 {2}warning {2}Schema `properties\.unit\.default`: `default` "kelvin" does not fit its own schema \(not one of \["celsius","fahrenheit"\]\); every call that leaves it out fails {2}skill-parser:tool-invalid-default/,
    );
    expect(check.stdout).toMatch(
      /s\/conv\/SKILL\.md:26:14 {2}error {2}Schema is not a valid JSON Schema: `properties\.value\.type`: `type` must be one of array, boolean, integer, null, number, object, string .* {2}skill-parser:tool-invalid-schema/,
    );
  });

  it('a call that reaches a broken schema says the schema is broken, not the arguments', async () => {
    // Only the default is wrong (a warning): the skill loads and the tool can be called.
    await skill('conv', CONVERT.slice(0, CONVERT.indexOf('### convert2')));
    const call = await cli(['tool', 'convert', '--skills-dir', 's', '--args', '{"value":20}']);
    expect(call.code).not.toBe(0);
    expect(call.stderr).toContain("The tool's schema is broken (not your arguments)");
    expect(call.stderr).toContain('properties.unit.default');
    expect(call.stderr).not.toContain('fix them and call again');
    const good = await cli([
      'tool',
      'convert',
      '--skills-dir',
      's',
      '--args',
      '{"value":20,"unit":"celsius"}',
    ]);
    expect(good.stdout).toContain('20 celsius');
  });
});

describe('skills check: YAML and mcp_server diagnostics (report #13)', { timeout: 60_000 }, () => {
  it('an unclosed flow list is one error, at its `[`, without the quoting hint', async () => {
    await skill(
      'flow',
      '---\nname: flow\ndescription: unclosed flow list\ntags: [a, b\nenabled_by_default: false\n---\nbody\n',
    );
    const check = await cli(['skills', 'check', 's']);
    const errors = check.stdout.split('\n').filter((line) => line.includes('yaml-syntax'));
    expect(errors).toHaveLength(1);
    expect(errors[0]).toMatch(/^s\/flow\/SKILL\.md:4:7 {2}error {2}YAML: Flow sequence/);
    expect(errors[0]).not.toContain('quote the value');
  });

  it('a tab-indented schema line gets a hint about tabs, not about quoting', async () => {
    await skill(
      'tabs',
      '---\nname: tabs\ndescription: x\n---\n## Tools\n\n### t\ndescription: x\nentrypoint: bash:echo {a}\nschema:\n  type: object\n  properties:\n\ta: { type: string }\n',
    );
    const check = await cli(['skills', 'check', 's']);
    expect(check.stdout).toContain('YAML: Tabs are not allowed as indentation (indent with spaces)');
    expect(check.stdout).not.toContain('quote the value');
  });

  it('lists every mcp_server mistake at once, and says `command` must be text', async () => {
    await skill(
      'srv',
      '---\nname: srv\ndescription: an MCP server with four mistakes\nmcp_server:\n  transport: stdio\n  command: 42\n  args: ./server.js\n  timeout: -5\n  env: [A, B]\n---\nx\n',
    );
    const check = await cli(['skills', 'check', 's']);
    const lines = check.stdout.split('\n').filter((line) => line.includes('invalid-mcp-server'));
    expect(lines.map((line) => line.split('  error  ')[0])).toEqual([
      's/srv/SKILL.md:6:12',
      's/srv/SKILL.md:7:9',
      's/srv/SKILL.md:8:12',
      's/srv/SKILL.md:9:8',
    ]);
    expect(lines[0]).toContain('command: must be text (got a number)');
    expect(check.stdout).toContain('0 skills loaded: 4 errors');
  });
});
