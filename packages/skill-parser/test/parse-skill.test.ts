import { describe, expect, it } from 'vitest';
import { MAX_SKILL_FILE_BYTES, parseSkill } from '../src/index.js';
import { brief } from './helpers.js';

const toolSkill = (name: string, options: { inject?: boolean; entrypoint?: string } = {}) =>
  [
    '---',
    `name: ${name}`,
    'description: A tool skill.',
    ...(options.inject ? ['always_inject: true'] : []),
    '---',
    '',
    'Prose before the tools.',
    '',
    '## Tools',
    '',
    '### run',
    'description: Runs it.',
    `entrypoint: ${options.entrypoint ?? 'bash:true'}`,
    '',
  ].join('\n');

describe('parseSkill', () => {
  it('takes the skill folder from the path and defaults the optional fields', () => {
    const { skill, messages } = parseSkill('---\nname: demo\ndescription: Demo.\n---\n\n# Demo\n\nText.\n', {
      path: '/skills/demo/SKILL.md',
    });
    expect(messages).toEqual([]);
    expect(skill).toEqual({
      name: 'demo',
      version: '1.0.0',
      description: 'Demo.',
      tags: [],
      toolTags: [],
      triggers: [],
      enabledByDefault: true,
      alwaysInject: false,
      tools: [],
      body: '# Demo\n\nText.',
      kind: 'knowledge',
      file: '/skills/demo/SKILL.md',
      dir: '/skills/demo',
      resources: [],
    });
  });

  it('keeps the prose before ## Tools only with always_inject, and never the Tools section', () => {
    const injected = parseSkill(toolSkill('run', { inject: true }), { path: '/s/run/SKILL.md' }).skill!;
    const plain = parseSkill(toolSkill('run'), { path: '/s/run/SKILL.md' }).skill!;
    expect(injected.body).toBe('Prose before the tools.');
    expect(injected.kind).toBe('tool');
    expect(plain.body).toBeNull();
    expect(plain.tools.map((t) => t.name)).toEqual(['run']);
  });

  it('keeps prose under a `## Tools` heading without tool blocks in the body the model reads (issue 30, defect 9)', () => {
    const { skill, messages } = parseSkill(
      '---\nname: prose\ndescription: Knowledge.\n---\n\nIntro.\n\n## Tools\n\nPrefer ripgrep over grep.\n',
      { path: '/s/prose/SKILL.md' },
    );
    expect(skill!.kind).toBe('knowledge');
    expect(skill!.body).toBe('Intro.\n\n## Tools\n\nPrefer ripgrep over grep.');
    expect(messages.map(brief)).toEqual(['8:1 empty-tools-section warning']);
  });

  it("strict: the standard's rules are errors, and keys outside the standard are reported", () => {
    const text =
      '---\nname: Strict\ndescription: Mixed keys.\nversion: 1.0.0\nallowed_tools: Read\nlicense: MIT\n---\n\nBody.\n';
    const lenient = parseSkill(text, { path: '/s/Strict/SKILL.md' });
    expect(lenient.skill).toBeDefined();
    expect(lenient.messages.map(brief)).toEqual(['2:7 name-format warning']);
    const strict = parseSkill(text, { path: '/s/Strict/SKILL.md', strict: true });
    expect(strict.skill).toBeUndefined();
    expect(strict.messages.map(brief)).toEqual([
      '2:7 name-format error',
      '4:1 non-standard-key error',
      '5:1 non-standard-key error',
    ]);
    expect(strict.messages[2]!.reason).toContain('the standard spells it `allowed-tools`');
  });

  it.each([
    ['bash:echo "{content}" > {path}'],
    ["bash:grep -n '#' {file} | head -n 5 # counts: yes"],
    ['http:get https://api.example.com/v1/{id}?q={query}#frag'],
    ['bash:{command}'],
  ])('takes the entrypoint verbatim: %s', (entrypoint) => {
    const { skill, messages } = parseSkill(toolSkill('run', { entrypoint }), { path: '/s/run/SKILL.md' });
    expect(messages).toEqual([]);
    expect(skill!.tools[0]!.entrypoint).toBe(entrypoint);
  });

  it('accepts a BOM (with a warning: other clients refuse it) and CRLF, and keeps every position exact', () => {
    const lf =
      '---\nname: crlf\ndescription: Windows line endings.\ntags: [a]\nalways_inject: 3\n---\n\n## Tools\n\n### run\ndescription: x\nentrypoint: bash:true\ntimeout: soon\n';
    const crlf = `\uFEFF${lf.replaceAll('\n', '\r\n')}`;
    const a = parseSkill(lf, { path: '/s/crlf/SKILL.md' });
    const b = parseSkill(crlf, { path: '/s/crlf/SKILL.md' });
    expect(a.messages.map(brief)).toEqual(['5:16 invalid-type error', '13:10 invalid-type error']);
    expect(b.messages.map(brief)).toEqual(['1:1 byte-order-mark warning', ...a.messages.map(brief)]);

    const good = parseSkill(`\uFEFF${toolSkill('run', { inject: true }).replaceAll('\n', '\r\n')}`, {
      path: '/s/run/SKILL.md',
    });
    expect(good.messages.map(brief)).toEqual(['1:1 byte-order-mark warning']);
    expect(good.skill!.tools[0]).toMatchObject({
      entrypoint: 'bash:true',
      description: 'Runs it.',
      line: 11,
    });
    expect(good.skill!.body).toBe('Prose before the tools.');
  });

  it('gives the position of the entrypoint value, however it is written', () => {
    const tools = [
      '### plain',
      'description: x',
      'entrypoint: bash:echo "{a}" # kept',
      '### quoted',
      'description: x',
      "entrypoint:   'http:get https://x.test/{id}'",
      '### block',
      'description: x',
      'entrypoint: >-',
      '    bash:echo {a}',
      '### next_line',
      'description: x',
      'entrypoint:',
      '  node:./t.js#run',
    ].join('\n');
    const text = `---\nname: pos\ndescription: Positions.\n---\n\n## Tools\n\n${tools}\n`;
    const positions = (t: string) =>
      parseSkill(t, { path: '/s/pos/SKILL.md' }).skill!.tools.map((tool) => [
        tool.name,
        tool.entrypointPosition,
      ]);
    const expected = [
      ['plain', { line: 10, column: 13 }],
      ['quoted', { line: 13, column: 16 }],
      ['block', { line: 17, column: 5 }],
      ['next_line', { line: 21, column: 3 }],
    ];
    expect(positions(text)).toEqual(expected);
    expect(positions(`\uFEFF${text.replaceAll('\n', '\r\n')}`)).toEqual(expected);
    // Offsets along a verbatim entrypoint are columns along its line.
    const lines = text.split('\n');
    const skill = parseSkill(text, { path: '/s/pos/SKILL.md' }).skill!;
    for (const tool of skill.tools.filter((t) => t.name !== 'block')) {
      const { line, column } = tool.entrypointPosition!;
      expect(lines[line - 1]!.slice(column - 1, column - 1 + tool.entrypoint.length)).toBe(tool.entrypoint);
    }
  });

  it('refuses a text over 1 MiB before parsing it', () => {
    const text = `---\nname: big\ndescription: Big.\n---\n\n${'x'.repeat(MAX_SKILL_FILE_BYTES)}`;
    const { skill, messages } = parseSkill(text, { path: '/s/big/SKILL.md' });
    expect(skill).toBeUndefined();
    expect(messages.map(brief)).toEqual(['1:1 file-too-large error']);
  });

  it('turns options.resources into sorted resources and resolves MCP args that name them', () => {
    const text =
      '---\nname: srv\ndescription: MCP.\nmcp_server:\n  command: python\n  args: [server.py, -u, tool.py, data/x.json]\n---\n';
    const { skill } = parseSkill(text, { path: '/s/srv/SKILL.md', resources: ['server.py', 'data/x.json'] });
    expect(skill!.resources).toEqual(['data/x.json', 'server.py']);
    expect(skill!.mcpServer).toEqual({
      transport: 'stdio',
      command: 'python',
      args: ['/s/srv/server.py', '-u', 'tool.py', '/s/srv/data/x.json'],
    });
  });

  it('reads sse servers and infers the transport from command or url', () => {
    const sse = parseSkill(
      '---\nname: a\ndescription: A.\nmcp_server:\n  transport: sse\n  url: http://127.0.0.1:9/sse\n  timeout: 5\n---\n',
      {
        path: '/s/a/SKILL.md',
      },
    );
    expect(sse.skill!.mcpServer).toEqual({ transport: 'sse', url: 'http://127.0.0.1:9/sse', timeout: 5 });
    const inferred = parseSkill(
      '---\nname: a\ndescription: A.\nmcp_server:\n  url: https://x.test/mcp\n---\n',
      {
        path: '/s/a/SKILL.md',
      },
    );
    expect(inferred.skill!.mcpServer).toEqual({ transport: 'streamable_http', url: 'https://x.test/mcp' });
  });

  it('reports a name without a value once, as missing, at its key, and a blank one once, as invalid', () => {
    for (const empty of ['name:', 'name: ~', 'name: null', 'name:   # no value']) {
      const { messages } = parseSkill(`---\n${empty}\ndescription: D.\n---\n`, { path: '/s/x/SKILL.md' });
      expect(messages.map(brief), empty).toEqual(['2:1 missing-name error']);
      expect(messages[0]!.place).toEqual({
        start: { line: 2, column: 1, offset: 4 },
        end: { line: 2, column: 5, offset: 8 },
      });
    }
    const description = parseSkill('---\nname: x\ndescription:\n---\n', { path: '/s/x/SKILL.md' });
    expect(description.messages.map(brief)).toEqual(['3:1 missing-description error']);
    const absent = parseSkill('---\ndescription: D.\n---\n', { path: '/s/x/SKILL.md' });
    expect(absent.messages.map(brief)).toEqual(['1:1 missing-name error']);
    const blank = parseSkill('---\nname: "  "\ndescription: D.\n---\n', { path: '/s/x/SKILL.md' });
    expect(blank.messages.map(brief)).toEqual(['2:7 invalid-type error']);
  });

  it('keeps a version written as a number as the author wrote it', () => {
    const { skill } = parseSkill('---\nname: v\ndescription: V.\nversion: 1.10\n---\n', {
      path: '/s/v/SKILL.md',
    });
    expect(skill!.version).toBe('1.10');
  });

  it('never throws on malformed input', () => {
    const inputs = [
      '',
      '---',
      '---\n',
      '---\n---',
      '---\n---\n## Tools\n### x',
      '\u0000\u0001---',
      '---\n: :\n---\n',
      '---\n*a\n---\n',
    ];
    for (const text of inputs) {
      const result = parseSkill(text, { path: '/s/x/SKILL.md' });
      expect(result.skill).toBeUndefined();
      expect(result.messages.some((m) => m.fatal === true)).toBe(true);
    }
  });

  it('reads a setext "Tools" heading and character references as a Tools section, like the Markdown tree does', () => {
    const setext =
      '---\nname: s\ndescription: S.\n---\n\nTools\n-----\n\n### run\ndescription: R.\nentrypoint: bash:true\n';
    expect(parseSkill(setext, { path: '/s/s/SKILL.md' }).skill!.tools).toHaveLength(1);
    const reference = setext.replace('Tools\n-----', '## T&#111;ols');
    expect(parseSkill(reference, { path: '/s/s/SKILL.md' }).skill!.tools).toHaveLength(1);
    const level1 = setext.replace('Tools\n-----', '# Tools');
    expect(parseSkill(level1, { path: '/s/s/SKILL.md' }).skill!.kind).toBe('knowledge');
  });

  it('reads a tool name as the Markdown tree does, and reports a bad one on its heading even when markup changed it', () => {
    const withName = (heading: string) =>
      `---\nname: s\ndescription: S.\n---\n\n## Tools\n\n### ${heading}\ndescription: R.\nentrypoint: bash:true\n`;
    const invalid = (heading: string) =>
      parseSkill(withName(heading), { path: '/s/s/SKILL.md' })
        .messages.filter((m) => m.ruleId === 'invalid-tool-name')
        .map(
          (m) =>
            `${m.line}:${m.column}-${m.place && 'end' in m.place ? `${m.place.end.line}:${m.place.end.column}` : ''} ${m.reason}`,
        );
    // Markup the name's text does not show (an escape, a character reference): the whole heading is the place.
    expect(invalid('a\\_b!')).toEqual([
      '8:1-8:10 Tool name `a_b!` must match ^[a-zA-Z0-9_-]{1,64}$ (what model providers accept)',
    ]);
    expect(invalid('a&amp;b')).toEqual([
      '8:1-8:12 Tool name `a&b` must match ^[a-zA-Z0-9_-]{1,64}$ (what model providers accept)',
    ]);
    // CommonMark replaces NUL with U+FFFD, and so does the tree's text.
    expect(invalid('a\u0000b')).toEqual([
      '8:1-8:8 Tool name `a\uFFFDb` must match ^[a-zA-Z0-9_-]{1,64}$ (what model providers accept)',
    ]);
    // Where the text is in the source, the name alone is the place.
    expect(invalid('a b')).toEqual([
      '8:5-8:8 Tool name `a b` must match ^[a-zA-Z0-9_-]{1,64}$ (what model providers accept)',
    ]);
  });

  it('reads a fenced schema as the Markdown tree gives it: NUL becomes U+FFFD', () => {
    const text = [
      '---\nname: s\ndescription: S.\n---\n\n## Tools\n\n### run\ndescription: R.\nentrypoint: bash:true\nschema:',
      '```json',
      '{"type": "object", "properties": {"a": {"type": "string", "description": "x\u0000y"}}}',
      '```\n',
    ].join('\n');
    const { skill, messages } = parseSkill(text, { path: '/s/s/SKILL.md' });
    expect(messages.map(brief)).toEqual([]);
    expect(skill!.tools[0]!.schema.properties).toEqual({ a: { type: 'string', description: 'x\uFFFDy' } });
  });
});

// Reported by a skill author: `timeout: -5` said "Tool `timeout`: must be positive", which reads as a tool named timeout.
describe('a tool setting of the wrong type', () => {
  it('names the tool and the setting', () => {
    const source = [
      '---',
      'name: settings',
      'description: Settings of the wrong type.',
      '---',
      '',
      '## Tools',
      '',
      '### t1',
      'description: One.',
      'entrypoint: bash:true',
      'timeout: -5',
      'approval: sometimes',
      'sandbox: maybe',
      '',
    ].join('\n');
    const reasons = parseSkill(source, { path: '/skills/settings/SKILL.md' }).messages.map((m) => m.reason);
    expect(reasons).toContain('Tool `t1`, `timeout`: must be positive');
    expect(reasons).toContainEqual(expect.stringMatching(/^Tool `t1`, `approval`: /));
    expect(reasons).toContainEqual(expect.stringMatching(/^Tool `t1`, `sandbox`: /));
  });
});

// Reported by a skill author: `required: [a, b]` with only `a` in `properties` passed the check, and every call fails:
// without `b` it is missing, with it the call is refused (a schema that lists its properties takes no other).
describe('a required name the schema does not declare', () => {
  it('is a warning at `required`, naming it', () => {
    const source = (extra: string) =>
      [
        '---',
        'name: req',
        'description: Required names.',
        '---',
        '',
        '## Tools',
        '',
        '### t1',
        'description: One.',
        'entrypoint: bash:echo {a}',
        'schema:',
        '  type: object',
        '  properties:',
        '    a: {type: string}',
        '  required: [a, b]',
        ...(extra ? [`  ${extra}`] : []),
        '',
      ].join('\n');
    const messages = parseSkill(source(''), { path: '/skills/req/SKILL.md' }).messages;
    const found = messages.filter((m) => m.ruleId === 'tool-required-undeclared');
    expect(found.map((m) => `${m.line} ${m.fatal ? 'error' : 'warning'} ${m.reason}`)).toEqual([
      '15 warning Schema `required` names `b`, which `properties` does not declare: every call fails (without it, it is missing; with it, it is not an argument of this tool)',
    ]);
    const open = parseSkill(source('additionalProperties: true'), { path: '/skills/req/SKILL.md' }).messages;
    expect(open.filter((m) => m.ruleId === 'tool-required-undeclared')).toEqual([]);
  });
});
