import { execFileSync } from 'node:child_process';
import { symlink } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { discoverSkills, loadSkillFile, parseSkill } from '../src/index.js';
import { brief, skillText, tempTree } from './helpers.js';

let cleanup: (() => Promise<void>) | undefined;
afterEach(async () => {
  await cleanup?.();
  cleanup = undefined;
});

async function tree(files: Record<string, string | Buffer>) {
  const made = await tempTree(files);
  cleanup = made.cleanup;
  return made.root;
}

const PATH = '/s/bad/SKILL.md';
/** A backslash escape is outside the fast reader's subset, so this frontmatter goes through the `yaml` package. */
const VIA_YAML = 'x-note: "a\\tb"\n';
const INHERITED_KEYS = ['__proto__', 'constructor', 'toString', 'hasOwnProperty', 'valueOf', 'isPrototypeOf'];

const toolSkill = (tool: string) =>
  `---\nname: bad\ndescription: A tool skill.\n---\n\n## Tools\n\n### run\ndescription: Runs.\nentrypoint: bash:true\n${tool}`;

/** An alias bomb: each level repeats the one before nine times (9^4 nodes from a few lines). */
const BOMB = [
  'a: &a [x, x, x, x, x, x, x, x, x]',
  'b: &b [*a, *a, *a, *a, *a, *a, *a, *a, *a]',
  'c: &c [*b, *b, *b, *b, *b, *b, *b, *b, *b]',
  'd: [*c, *c, *c, *c, *c, *c, *c, *c, *c]',
];

function parse(text: string) {
  return parseSkill(text, { path: PATH });
}

/** Runs `parse` and returns the compact messages; fails the test with the stack if anything is thrown. */
function briefs(text: string): string[] {
  return parse(text).messages.map(brief);
}

describe('keys that name Object.prototype members', () => {
  it.each(
    INHERITED_KEYS.flatMap((key) => [
      [key, 'fast'],
      [key, 'yaml'],
    ]),
  )('a top-level `%s` key (%s reader) is an unknown key, nothing more', (key, reader) => {
    const extra = `${key}: x\n${reader === 'yaml' ? VIA_YAML : ''}`;
    const { skill, messages } = parse(skillText('bad', 'Body.', extra));
    expect(messages.filter((m) => m.line === 4).map(brief)).toEqual(['4:1 unknown-key info']);
    expect(skill?.name).toBe('bad');
  });

  it.each(['fast', 'yaml'])(
    'keeps such keys as own properties of metadata and schemas (%s reader)',
    (reader) => {
      const metadata = `metadata:\n  __proto__:\n    polluted: yes\n  constructor: c\n  toString: t\n${reader === 'yaml' ? VIA_YAML : ''}`;
      const { skill } = parse(
        `${skillText('bad', '', metadata).trimEnd()}\n## Tools\n\n### run\ndescription: Runs.\nentrypoint: bash:{__proto__}\nschema:\n  type: object\n  properties:\n    __proto__:\n      type: string\n    constructor: {type: string}\n  required: [__proto__]\n`,
      );
      expect(skill).toBeDefined();
      const meta = skill!.metadata!;
      expect(Object.keys(meta).sort()).toEqual(['__proto__', 'constructor', 'toString']);
      expect(Object.getPrototypeOf(meta)).toBe(Object.prototype);
      expect(Object.hasOwn(meta, 'polluted')).toBe(false);
      const properties = skill!.tools[0]!.schema.properties!;
      expect(Object.keys(properties).sort()).toEqual(['__proto__', 'constructor']);
      expect(Object.getPrototypeOf(properties)).toBe(Object.prototype);
      expect(Object.getOwnPropertyDescriptor(properties, '__proto__')?.value).toEqual({ type: 'string' });
      expect(({} as Record<string, unknown>).polluted).toBeUndefined();
    },
  );

  it('keeps an `__proto__` key of an MCP server environment', () => {
    const { skill } = parse(
      skillText('bad', '', 'mcp_server:\n  command: node\n  env:\n    __proto__: x\n    constructor: y\n'),
    );
    const env = (skill!.mcpServer as { env: Record<string, string> }).env;
    expect(Object.entries(env)).toEqual([
      ['__proto__', 'x'],
      ['constructor', 'y'],
    ]);
  });

  it.each(['constructor', '__proto__', 'toString'])('an MCP transport named `%s` is unknown', (transport) => {
    expect(briefs(skillText('bad', '', `mcp_server:\n  transport: ${transport}\n  command: x\n`))).toEqual([
      '5:14 invalid-mcp-server error',
    ]);
  });
});

describe('YAML limits are positioned errors of that file', () => {
  it('an alias bomb in the frontmatter', () => {
    expect(briefs(skillText('bad', 'Body.', `${BOMB.join('\n')}\n`))).toEqual(['5:8 yaml-alias-limit error']);
  });

  it('an alias bomb in a tool schema', () => {
    const schema = `schema:\n  type: object\n${BOMB.map((l) => `  ${l}`).join('\n')}\n`;
    expect(briefs(toolSkill(schema))).toEqual(['14:10 yaml-alias-limit error']);
  });

  it('an alias that contains itself, and an alias with no anchor', () => {
    expect(briefs(skillText('bad', '', 'metadata: &m {self: *m}\n'))).toEqual([
      '4:21 yaml-alias-limit error',
    ]);
    expect(briefs(skillText('bad', '', 'metadata: {a: *nowhere}\n'))).toEqual(['4:15 yaml-syntax error']);
  });

  it('deep nesting in the frontmatter, flow and block', () => {
    expect(briefs(skillText('bad', '', `x: ${'['.repeat(10_000)}${']'.repeat(10_000)}\n`))).toEqual([
      '4:67 yaml-too-deep error',
    ]);
    const block = Array.from({ length: 80 }, (_, i) => `${' '.repeat(i)}k:`).join('\n');
    expect(briefs(skillText('bad', '', `${block} 1\n`))).toEqual(['68:65 yaml-too-deep error']);
  });

  it('deep nesting in a tool schema, in YAML and in a JSON fence', () => {
    expect(briefs(toolSkill(`schema: ${'{a: '.repeat(5_000)}1${'}'.repeat(5_000)}\n`))).toEqual([
      '11:261 yaml-too-deep error',
    ]);
    const json = `${'{"a":'.repeat(5_000)}1${'}'.repeat(5_000)}`;
    expect(briefs(toolSkill(`schema:\n\`\`\`json\n${json}\n\`\`\`\n`))).toEqual([
      '13:321 yaml-too-deep error',
    ]);
  });

  it('nesting up to the limit still loads', () => {
    const schema = `schema:\n  type: object\n  properties:\n    a: ${'{b: '.repeat(40)}1${'}'.repeat(40)}\n`;
    const { skill, messages } = parse(toolSkill(schema));
    expect(messages).toEqual([]);
    expect(skill!.tools[0]!.schema.properties).toHaveProperty('a.b.b.b');
  });
});

describe('results stay plain JSON whatever the YAML says', () => {
  it('ignores explicit tags such as !!binary, !!timestamp, !!set and !!js/function', () => {
    const tagged = parse(
      skillText(
        'bad',
        '',
        'metadata:\n  a: !!binary aGk=\n  b: !!timestamp 2001-12-14\n  c: !!set {x}\n  d: !!js/function "x"\n',
      ),
    );
    expect(tagged.skill!.metadata).toEqual({ a: 'aGk=', b: '2001-12-14', c: { x: null }, d: 'x' });
  });

  it('reads a fenced schema with YAML 1.2 core rules even under a %YAML 1.1 directive', () => {
    const schema =
      '```yaml\n%YAML 1.1\n---\ntype: object\nproperties:\n  a: {type: string, default: yes, examples: [2001-12-14]}\n```\n';
    const { skill, messages } = parse(toolSkill(schema));
    expect(messages).toEqual([]);
    expect(skill!.tools[0]!.schema.properties).toEqual({
      a: { type: 'string', default: 'yes', examples: ['2001-12-14'] },
    });
  });
});

describe('Markdown that is expensive to read', () => {
  it('a body of thousands of setext headings is refused at the first past the limit', () => {
    const body = `## Tools\n\n${'Tools tools\n-\n'.repeat(20_000)}`;
    expect(briefs(skillText('bad', body))).toEqual(['409:1 too-many-setext-headings error']);
    // Below the limit the same lines are read as usual (here: level-2 headings that end the Tools section).
    const fewer = parse(
      skillText('bad', `## Tools\n\n### run\nentrypoint: bash:true\n\n${'Notes\n-\n'.repeat(200)}`),
    );
    expect(fewer.messages.map(brief)).toEqual(['8:1 tool-missing-description warning']);
    expect(fewer.skill!.tools).toHaveLength(1);
  });

  it('a long line full of "tools" is read as prose', () => {
    const { skill, messages } = parse(skillText('bad', 'tools '.repeat(150_000)));
    expect(messages).toEqual([]);
    expect(skill!.kind).toBe('knowledge');
  });

  it('headings with long runs of blanks inside, in a body with a Tools section', () => {
    const body = `## Tools\n\n# a${'\t'.repeat(300_000)}b\n# c${' '.repeat(300_000)}d #\n`;
    const { skill, messages } = parse(skillText('bad', body));
    expect(messages.map(brief)).toEqual(['6:1 empty-tools-section warning']);
    expect(skill!.tools).toEqual([]);
  });

  it('twenty thousand keys in a mapping read by yaml', () => {
    const keys = Array.from({ length: 20_000 }, (_, i) => `  k${i}: "v\\t"`).join('\n');
    const { skill, messages } = parse(skillText('bad', '', `metadata:\n${keys}\n  k7: again\n`));
    expect(messages.map(brief)).toEqual(['20005:3 duplicate-key error']);
    expect(skill).toBeUndefined();
  });

  it('a megabyte of flow brackets is refused from the lexemes', () => {
    const text = skillText('bad', '', `x: ${'['.repeat(1_000_000)}\n`);
    expect(briefs(text)).toEqual(['4:67 yaml-too-deep error']);
  });

  it('a heading with thousands of nested emphasis markers', () => {
    const heading = `## ${'*a '.repeat(4_000)}Tools${' b*'.repeat(4_000)}`;
    const { skill } = parse(skillText('bad', heading));
    expect(skill?.kind).toBe('knowledge');
  });
});

describe('discoverSkills: the bad file costs only itself', () => {
  const bad: Record<string, string> = {
    'proto-key': skillText('proto-key', 'Body.', '__proto__: x\n'),
    'constructor-key': skillText('constructor-key', 'Body.', `constructor: x\n${VIA_YAML}`),
    'alias-bomb': skillText('alias-bomb', 'Body.', `${BOMB.join('\n')}\n`),
    'deep-nesting': skillText('deep-nesting', 'Body.', `x: ${'{a: '.repeat(20_000)}1${'}'.repeat(20_000)}\n`),
    'schema-bomb': toolSkill(`schema:\n  type: object\n${BOMB.map((l) => `  ${l}`).join('\n')}\n`),
  };

  it.each(Object.keys(bad))('%s next to a good skill', async (name) => {
    const root = await tree({ [`${name}/SKILL.md`]: bad[name]!, 'good/SKILL.md': skillText('good') });
    const { skills, messages } = await discoverSkills(root);
    expect(skills.map((s) => s.name)).toContain('good');
    for (const message of messages) {
      expect(message.file).toBe(join(root, name, 'SKILL.md'));
      expect(message.line).toBeGreaterThanOrEqual(1);
    }
    const loaded = await loadSkillFile(join(root, name, 'SKILL.md'));
    expect(loaded.messages.map(brief)).toEqual(messages.map(brief));
  });

  it('a SKILL.md that is a named pipe is unreadable, and discovery does not wait on it', async () => {
    const root = await tree({ 'good/SKILL.md': skillText('good'), 'pipe/README': '' });
    execFileSync('mkfifo', [join(root, 'pipe', 'SKILL.md')]);
    const { skills, messages } = await discoverSkills(root);
    expect(skills.map((s) => s.name)).toEqual(['good']);
    expect(messages.map((m) => [m.file, brief(m)])).toEqual([
      [join(root, 'pipe', 'SKILL.md'), '1:1 unreadable-file error'],
    ]);
    expect(messages[0]!.reason).toMatch(/not a regular file/);
  });

  it('a SKILL.md linked to a device is unreadable, not read forever', async () => {
    const root = await tree({ 'good/SKILL.md': skillText('good'), 'zero/README': '' });
    await symlink('/dev/zero', join(root, 'zero', 'SKILL.md'));
    const { skills, messages } = await discoverSkills(root);
    expect(skills.map((s) => s.name)).toEqual(['good']);
    expect(messages.map(brief)).toEqual(['1:1 unreadable-file error']);
  });
});
