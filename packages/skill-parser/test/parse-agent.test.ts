import { describe, expect, it } from 'vitest';
import { MODEL_TIERS, MODEL_VENDORS, modelProblem, parseAgent } from '../src/index.js';
import { brief } from './helpers.js';

const PATH = '/agents/helper.md';
const agentText = (extra = '', body = 'You help.') =>
  `---\nname: helper\ndescription: Helps.\n${extra}---\n\n${body}\n`;
const parse = (text: string) => parseAgent(text, { path: PATH });

describe('model', () => {
  it.each([
    'openai:gpt-4o-mini',
    'anthropic:claude-sonnet-4-5@20250929',
    'ollama:llama3.2:3b',
    'openai:meta-llama/Llama-3.1-8B-Instruct',
    'scripted:scripted',
    'fast',
    'default',
    'strong',
  ])('accepts %s', (model) => {
    const { agent, messages } = parse(agentText(`model: ${model}\n`));
    expect(messages).toEqual([]);
    expect(agent?.model).toBe(model);
    expect(agent?.positions?.model).toEqual({ line: 4, column: 8 });
  });

  it.each([
    ['"https://collector.example.com/v1"', 'a URL is not a model'],
    ['"openai://collector.example.com"', 'a URL is not a model'],
    ['acme:big', 'unknown vendor `acme`'],
    ['"openai:"', 'is not a model name'],
    ['"openai:../../v1/files"', 'is not a model name'],
    ['"openai:a//b"', 'is not a model name'],
    ['"openai:gpt 4"', 'is not a model name'],
    ['"openai:gpt?x=1"', 'is not a model name'],
    // Exploratory report (skill author) #7: `model: gpt-4o` passed `agents check`, and every run of the agent failed.
    [
      'gpt-4o',
      '`gpt-4o` is neither `vendor:model` nor a tier (fast, default, strong); to name a model, write its vendor: `openai:gpt-4o`',
    ],
    ['smart', '`smart` is neither `vendor:model` nor a tier (fast, default, strong)'],
    ['Fast', 'is neither `vendor:model` nor a tier'],
    ['"fast tier"', 'is neither `vendor:model` nor a tier'],
    ['5', 'expected text'],
    ['[openai, gpt-4o]', 'expected text'],
    ['{vendor: openai, base_url: "http://x"}', 'a mapping cannot be a model'],
  ])('refuses model: %s at its value', (value, reason) => {
    const { agent, messages } = parse(agentText(`model: ${value}\n`));
    expect(agent).toBeUndefined();
    expect(messages.map(brief)).toEqual(['4:8 invalid-model error']);
    expect(messages[0]!.reason).toContain(reason);
  });

  it('takes the tiers of MODEL_TIERS', () => {
    for (const tier of MODEL_TIERS) expect(modelProblem(tier)).toBeUndefined();
    expect(Object.isFrozen(MODEL_TIERS)).toBe(true);
  });

  it('checks a vendor against MODEL_VENDORS', () => {
    for (const vendor of MODEL_VENDORS) expect(modelProblem(`${vendor}:m`)).toBeUndefined();
    expect(Object.isFrozen(MODEL_VENDORS)).toBe(true);
  });
});

describe('keys an agent file may never set', () => {
  it.each([
    'base_url',
    'baseUrl',
    'Base-URL',
    'api_key',
    'headers',
    'command',
    'args',
    'module',
    'env',
    'mcp_server',
    'vendor',
    'provider',
  ])('`%s` is a forbidden-key error at the key, whatever its value', (key) => {
    for (const value of ['x', '~', '{a: 1}', '']) {
      const { agent, messages } = parse(agentText(`${key}: ${value}\n`));
      expect(agent).toBeUndefined();
      expect(messages.map(brief)).toEqual(['4:1 forbidden-key error']);
    }
  });

  it.each(['__proto__', 'constructor', 'toString', 'hasOwnProperty'])(
    'a `%s` key is an unknown key, nothing more',
    (key) => {
      const { agent, messages } = parse(agentText(`${key}: {polluted: 1}\n`));
      expect(messages.map(brief)).toEqual(['4:1 unknown-key info']);
      expect(agent?.name).toBe('helper');
      expect(({} as Record<string, unknown>).polluted).toBeUndefined();
    },
  );
});

describe('name lists', () => {
  it('reads a list or a string of names, keeps each once, and records where each was written', () => {
    const { agent, messages } = parse(
      agentText('skills: [web, web, notes]\ntools: "read_file,grep  read_file"\napprove:\n  - grep\n'),
    );
    expect(messages).toEqual([]);
    expect(agent).toMatchObject({
      skills: ['web', 'notes'],
      tools: ['read_file', 'grep'],
      approve: ['grep'],
    });
    expect(agent?.positions).toEqual({
      skills: [
        { line: 4, column: 10 },
        { line: 4, column: 20 },
      ],
      tools: [
        { line: 5, column: 9 },
        { line: 5, column: 19 },
      ],
      approve: [{ line: 7, column: 5 }],
    });
  });

  it('an empty list is an empty list; a key without a value is as if absent', () => {
    const { agent } = parse(agentText('skills: []\ntools:\n'));
    expect(agent?.skills).toEqual([]);
    expect(agent && 'tools' in agent).toBe(false);
  });

  it('`approve` takes approval patterns, in a list or in one string split outside parentheses', () => {
    const listed = parse(
      agentText('approve:\n  - "run_bash(git status)"\n  - write_file(path=docs/**)\n  - filesystem:*\n'),
    );
    expect(listed.messages).toEqual([]);
    expect(listed.agent?.approve).toEqual([
      'run_bash(git status)',
      'write_file(path=docs/**)',
      'filesystem:*',
    ]);
    const inline = parse(agentText('approve: "run_bash(npm test *), read_file"\n'));
    expect(inline.messages).toEqual([]);
    expect(inline.agent?.approve).toEqual(['run_bash(npm test *)', 'read_file']);
  });

  it('reports each bad item at its place', () => {
    const { messages } = parse(agentText('approve: [ok, "", [x], "no way"]\n'));
    expect(messages.map((m) => `${brief(m)} ${m.reason}`)).toEqual([
      '4:15 invalid-type error `approve[1]`: expected a name, got empty text',
      '4:19 invalid-type error `approve[2]`: expected a name, got `["x"]`',
      '4:24 invalid-type error `approve[3]`: `no way` is not a tool name or an approval pattern (`read_file`, `run_bash(git status)`)',
    ]);
  });
});

describe('body and digest', () => {
  it('the body is the prompt, trimmed; an agent without one has an empty body', () => {
    expect(parse(agentText('', '\n  # Helper\r\n\r\nYou help.  \n\n')).agent?.body).toBe(
      '# Helper\n\nYou help.',
    );
    expect(parse(agentText('', '')).agent?.body).toBe('');
  });

  it('is the same for CRLF line ends and a BOM, and changes with the frontmatter or the body', () => {
    const text = agentText('model: fast\n');
    const digest = parse(text).agent!.digest;
    expect(digest).toMatch(/^[0-9a-f]{64}$/);
    expect(parse(`\uFEFF${text.replaceAll('\n', '\r\n')}`).agent!.digest).toBe(digest);
    expect(parse(agentText('model: strong\n')).agent!.digest).not.toBe(digest);
    expect(parse(agentText('model: fast\n', 'You help more.')).agent!.digest).not.toBe(digest);
  });

  it('positions stay exact with CRLF and a BOM', () => {
    const { agent } = parse(`\uFEFF${agentText('skills: [a, b]\n').replaceAll('\n', '\r\n')}`);
    expect(agent?.positions?.skills).toEqual([
      { line: 4, column: 10 },
      { line: 4, column: 13 },
    ]);
  });
});

describe('numbers and flags', () => {
  it('reads progressive, max_turns and timeout', () => {
    expect(parse(agentText('progressive: false\nmax_turns: 3\ntimeout: 1.5\n')).agent).toMatchObject({
      progressive: false,
      maxTurns: 3,
      timeout: 1.5,
    });
  });

  it('reads temperature and max_retries', () => {
    expect(parse(agentText('temperature: 0.2\nmax_retries: 0\n')).agent).toMatchObject({
      temperature: 0.2,
      maxRetries: 0,
    });
  });

  it('reads session: keep of a trigger', () => {
    const { agent, messages } = parse(agentText('every: 1h\nprompt: check\nsession: keep\n'));
    expect(messages).toEqual([]);
    expect(agent?.triggers).toEqual({ every: 3600, prompt: 'check', session: 'keep' });
  });

  it('warns about session without a trigger and drops it', () => {
    const { agent, messages } = parse(agentText('session: keep\n'));
    expect(messages.map((m) => m.ruleId)).toEqual(['trigger-key-unused']);
    expect(agent?.triggers).toBeUndefined();
  });

  it.each([
    ['temperature: 3', 'must be from 0 to 2'],
    ['temperature: warm', 'expected a number from 0 to 2'],
    ['max_retries: 1.5', 'expected a whole number from 0 to 10'],
    ['max_retries: 11', 'must be from 0 to 10'],
    ['every: 1h\nprompt: x\nsession: forever', 'expected `keep` or `new`'],
    ['max_turns: 2.5', 'expected a whole number'],
    ['max_turns: .inf', 'expected a whole number'],
    ['timeout: .inf', 'expected a number of seconds'],
    ['timeout: 0', 'must be positive'],
    ['progressive: yes', 'expected true or false'],
  ])('%s is an invalid-type error', (line, reason) => {
    const { agent, messages } = parse(agentText(`${line}\n`));
    expect(agent).toBeUndefined();
    expect(messages.map((m) => m.ruleId)).toEqual(['invalid-type']);
    expect(messages[0]!.reason).toContain(reason);
  });
});

it('never throws: a failure nothing foresaw is a parse-failed error of that file', () => {
  const text = { length: 10, charCodeAt: () => 0 } as unknown as string;
  const result = parseAgent(text, { path: PATH });
  expect(result.messages.map((m) => m.ruleId)).toEqual(['parse-failed']);
});
