import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Skill, SkillTool } from '@birdie/skill-parser';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createSkillTool, TOOL_LIMITS } from '../src/tools.js';

let dir: string;
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'graph-settings-'));
  await writeFile(
    join(dir, 'w.proto'),
    'syntax = "proto3";\npackage w;\nmessage Req { string city = 1; }\nmessage Res { string text = 1; }\nservice W { rpc Get(Req) returns (Res); }\n',
  );
});
afterAll(() => rm(dir, { recursive: true, force: true }));

describe('a skill tool runs its entrypoint with the settings of its SKILL.md block', () => {
  it('grpc: finds its proto: file (the call then fails only on the closed port)', async () => {
    const skill = { name: 'weather', dir } as Skill;
    const tool: SkillTool = {
      name: 'forecast',
      description: 'Forecast',
      entrypoint: 'grpc:127.0.0.1:1/w.W/Get',
      schema: { type: 'object', properties: { city: { type: 'string' } } },
      line: 1,
      proto: 'w.proto',
    };
    const run = async (declared: SkillTool) => {
      const built = createSkillTool(skill, declared, TOOL_LIMITS).build({ city: 'Oslo' });
      if (!built.ok) throw new Error(built.error);
      return built.invocation.run({ cwd: dir });
    };
    expect(await run(tool)).toMatchObject({ ok: false, code: 'network' });
    const { proto: _, ...withoutProto } = tool;
    expect(await run(withoutProto)).toMatchObject({ ok: false, code: 'bad-proto' });
  });
});
