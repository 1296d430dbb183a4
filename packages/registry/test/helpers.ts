import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Skill, SkillTool } from '@birdie/skill-parser';

/** A Skill as the parser would return it, with only what a test cares about spelled out. */
export function makeSkill(
  name: string,
  fields: Partial<Omit<Skill, 'tools'>> & { tools?: Array<string | Partial<SkillTool>> } = {},
): Skill {
  const dir = fields.dir ?? `/skills/${name}`;
  const tools = (fields.tools ?? []).map((tool, index) => {
    const spec = typeof tool === 'string' ? { name: tool } : tool;
    return {
      name: spec.name ?? `tool${index}`,
      description: spec.description ?? `${spec.name} tool`,
      entrypoint: spec.entrypoint ?? 'bash:echo hi',
      schema: spec.schema ?? { type: 'object' as const, properties: {} },
      line: spec.line ?? 10 + index * 5,
    };
  });
  const kind = fields.kind ?? (fields.mcpServer ? 'mcp' : tools.length > 0 ? 'tool' : 'knowledge');
  return {
    version: '1.0.0',
    description: `${name} skill`,
    tags: [],
    toolTags: [],
    triggers: [],
    enabledByDefault: true,
    alwaysInject: false,
    body: tools.length > 0 ? null : `Notes about ${name}.`,
    resources: [],
    file: `${dir}/SKILL.md`,
    ...fields,
    name,
    dir,
    kind,
    tools,
  };
}

export async function tempDir(t: { onTestFinished(fn: () => Promise<void>): void }): Promise<string> {
  const path = await mkdtemp(join(tmpdir(), 'birdie-registry-'));
  t.onTestFinished(() => rm(path, { recursive: true, force: true }));
  return path;
}
