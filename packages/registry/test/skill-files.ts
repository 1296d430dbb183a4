import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';

export interface SkillSpec {
  name?: string;
  description?: string;
  triggers?: string[];
  tags?: string[];
  enabledByDefault?: boolean;
  tools?: string[];
  body?: string;
}

/** The text of a SKILL.md in the birdie format. */
export function skillText(spec: SkillSpec & { name: string }): string {
  const lines = ['---', `name: ${spec.name}`, `description: ${spec.description ?? `The ${spec.name} skill`}`];
  if (spec.tags) lines.push(`tags: [${spec.tags.join(', ')}]`);
  if (spec.triggers) lines.push('triggers:', ...spec.triggers.map((t) => `  - ${JSON.stringify(t)}`));
  if (spec.enabledByDefault !== undefined) lines.push(`enabled_by_default: ${spec.enabledByDefault}`);
  lines.push('---', '', spec.body ?? `Notes about ${spec.name}.`, '');
  if (spec.tools?.length) {
    lines.push('## Tools', '');
    for (const tool of spec.tools) {
      lines.push(
        `### ${tool}`,
        `description: The ${tool} tool`,
        'entrypoint: bash:echo {text}',
        'schema:',
        '  type: object',
        '  properties:',
        '    text:',
        '      type: string',
        '',
      );
    }
  }
  return lines.join('\n');
}

/** Writes `<root>/<folder>/SKILL.md`; the folder defaults to the skill name. Returns the file path. */
export async function writeSkill(
  root: string,
  spec: SkillSpec & { name: string },
  folder = spec.name,
): Promise<string> {
  const dir = join(root, folder);
  await mkdir(dir, { recursive: true });
  const file = join(dir, 'SKILL.md');
  await writeFile(file, skillText(spec));
  return file;
}

export interface AgentSpec {
  name: string;
  description?: string;
  /** Frontmatter lines after name and description, as written (e.g. `'skills: [notes]'`). */
  lines?: string[];
  body?: string;
}

/** The text of an agent file. */
export function agentText(spec: AgentSpec): string {
  return [
    '---',
    `name: ${spec.name}`,
    `description: ${spec.description ?? `The ${spec.name} agent`}`,
    ...(spec.lines ?? []),
    '---',
    '',
    spec.body ?? `You are ${spec.name}.`,
    '',
  ].join('\n');
}

/** Writes `<root>/<file>` (default `<name>.md`). Returns the file path. */
export async function writeAgent(root: string, spec: AgentSpec, file = `${spec.name}.md`): Promise<string> {
  await mkdir(root, { recursive: true });
  const path = join(root, file);
  await writeFile(path, agentText(spec));
  return path;
}
