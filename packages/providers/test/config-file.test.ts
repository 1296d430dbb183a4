import { describe, expect, it } from 'vitest';
import { parseConfigFile, readConfigFile, resolveProviderConfig } from '../src/index.js';
import { rejection, useTempDir } from './helpers.js';

const KEY = 'sk-proj-SECRETSECRET-0123456789';
const dir = useTempDir('birdie-providers-file-');
const PATH = '/home/me/.birdie/config.json';

const failure = (text: string) => {
  try {
    parseConfigFile(text, PATH);
  } catch (error) {
    return error as { code: string; message: string; line?: number; column?: number; field?: string };
  }
  throw new Error('parseConfigFile accepted the text');
};

describe('config files: two shapes', () => {
  it('reads the sectioned shape: provider checked, settings handed back as written', () => {
    const file = parseConfigFile(
      JSON.stringify({ provider: { vendor: 'openai', api_key: KEY }, settings: { approval: 'never', x: 1 } }),
      PATH,
    );
    expect(file).toMatchObject({
      path: PATH,
      shape: 'sections',
      provider: { vendor: 'openai', api_key: KEY },
      settings: { approval: 'never', x: 1 },
    });
  });

  it("reads the first release's flat shape as the provider section", () => {
    const file = parseConfigFile('{"vendor":"anthropic","model":"claude-sonnet-4-5"}', PATH);
    expect(file).toMatchObject({
      shape: 'flat',
      provider: { vendor: 'anthropic', model: 'claude-sonnet-4-5' },
      settings: undefined,
    });
  });

  it('accepts either section alone, and an empty object', () => {
    expect(parseConfigFile('{"settings":{}}', PATH)).toMatchObject({ shape: 'sections', provider: {} });
    expect(parseConfigFile('{"provider":{}}', PATH)).toMatchObject({
      shape: 'sections',
      settings: undefined,
    });
    expect(parseConfigFile('\ufeff{}', PATH)).toMatchObject({ shape: 'flat', provider: {} });
  });

  it('resolves a flat and a sectioned file to the same provider config', async () => {
    const provider = { vendor: 'ollama', model: 'qwen3', base_url: 'http://127.0.0.1:11434' };
    const flat = await dir.file('flat.json', JSON.stringify(provider));
    const sections = await dir.file('sections.json', JSON.stringify({ provider, settings: {} }));
    const a = await resolveProviderConfig({ env: {}, saved: flat });
    const b = await resolveProviderConfig({ env: {}, saved: await readConfigFile(sections) });
    expect(a.config).toEqual(b.config);
    expect(b.config).toMatchObject(provider);
  });
});

describe('config files: every problem has its line and column', () => {
  it('an unknown field in the provider section', () => {
    const error = failure('{\n  "provider": {\n    "vendor": "openai",\n    "modle": "gpt-4o"\n  }\n}\n');
    expect(error).toMatchObject({ code: 'config-invalid', line: 4, column: 5, field: 'modle' });
    expect(error.message).toBe(
      `Invalid config in file ${PATH} at line 4, column 5: unknown field "provider.modle" (allowed: vendor, model, api_key, base_url, temperature, max_tokens, api_version, timeout, max_retries, script, command, args, env, module, class, options, models)`,
    );
  });

  it('an unknown field in a flat file', () => {
    const error = failure('{"vendor": "openai",\n "approval": "never"}');
    expect(error).toMatchObject({ line: 2, column: 2 });
    expect(error.message).toContain('at line 2, column 2: unknown field "approval"');
  });

  it('an unknown section, with a hint when it is a provider field left at the top', () => {
    const typo = failure('{"provider": {},\n  "setings": {}}');
    expect(typo.message).toBe(
      `Invalid config in file ${PATH} at line 2, column 3: unknown section "setings" (allowed: provider, settings)`,
    );
    const misplaced = failure('{"settings": {}, "model": "gpt-4o"}');
    expect(misplaced.message).toBe(
      `Invalid config in file ${PATH} at line 1, column 18: unknown section "model" (allowed: provider, settings); provider fields go inside "provider"`,
    );
  });

  it('a value out of range, a section of the wrong type, an unknown vendor', () => {
    const range = failure('{"provider": {\n  "temperature": 3}}');
    expect(range.message).toBe(
      `Invalid config in file ${PATH} at line 2, column 3: provider.temperature must be between 0 and 2 (got 3)`,
    );
    const section = failure('{"provider": [], "settings": 1}');
    expect(section.message).toBe(
      `Invalid config in file ${PATH} at line 1, column 2: "provider" must be a JSON object`,
    );
    const settings = failure('{"settings": "ask"}');
    expect(settings.message).toBe(
      `Invalid config in file ${PATH} at line 1, column 2: "settings" must be a JSON object`,
    );
    const vendor = failure('{"provider": {"vendor": "grok"}}');
    expect(vendor).toMatchObject({ code: 'unknown-vendor', line: 1, column: 15 });
  });

  it('never echoes the key, even of the wrong type', () => {
    const error = failure(`{"provider": {"api_key": ${JSON.stringify(KEY.split(''))}}}`);
    expect(error.message).toBe(
      `Invalid config in file ${PATH} at line 1, column 15: provider.api_key must be a string`,
    );
    const syntax = failure(`{"provider": {"api_key": "${KEY}" "model": "x"}}`);
    expect(syntax.code).toBe('config-invalid-json');
    expect(syntax.message).not.toContain(KEY.slice(0, 8));
  });

  it('gives positions of the settings section to the application', () => {
    const file = parseConfigFile(
      '{\n  "settings": {\n    "skills": {\n      "enable": ["a", 7]\n    }\n  }\n}',
      PATH,
    );
    expect(file.placeOf(['settings', 'skills', 'enable', 1])).toEqual({ line: 4, column: 23 });
    expect(file.placeOf(['settings', 'skills', 'nope'])).toEqual({ line: 3, column: 5 });
  });

  it('reports an unreadable file with its path', async () => {
    const error = await rejection(readConfigFile(`${dir.path}/missing.json`));
    expect(error).toMatchObject({ code: 'config-file-unreadable', file: `${dir.path}/missing.json` });
  });
});

describe('config files: section problems collected for a settings-only reader', () => {
  it('reports a bad provider section, an unknown section and a non-object settings, reading the rest', () => {
    const problems: string[] = [];
    const file = parseConfigFile(
      '{\n  "provider": { "vendor": "nosuch" },\n  "extra": 1,\n  "settings": { "approval": "never" }\n}',
      '/c.json',
      { sectionProblems: (problem) => problems.push(`${problem.line}:${problem.column} ${problem.message}`) },
    );
    expect(problems).toEqual([
      expect.stringMatching(
        /^3:3 Invalid config in file \/c\.json at line 3, column 3: unknown section "extra"/,
      ),
      expect.stringMatching(/^2:17 Unknown vendor "nosuch" in file \/c\.json/),
    ]);
    expect(file).toMatchObject({ provider: {}, settings: { approval: 'never' } });

    const flat: string[] = [];
    expect(
      parseConfigFile('{"vendor": 5}', '/f.json', { sectionProblems: (p) => flat.push(p.message) }),
    ).toMatchObject({ shape: 'flat', provider: {} });
    expect(flat).toHaveLength(1);
    const settings: string[] = [];
    expect(
      parseConfigFile('{"settings": 5}', '/s.json', { sectionProblems: (p) => settings.push(p.message) })
        .settings,
    ).toBeUndefined();
    expect(settings[0]).toContain('"settings" must be a JSON object');
    // Without the option, the first problem is thrown as before.
    expect(() => parseConfigFile('{"provider": {"vendor": "nosuch"}}', '/c.json')).toThrow('Unknown vendor');
  });
});
