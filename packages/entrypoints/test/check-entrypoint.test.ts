// biome-ignore-all lint/suspicious/noTemplateCurlyInString: these strings are bash, not JS templates
import { describe, expect, it } from 'vitest';
import { checkEntrypoint, type EntrypointError, resolveEntrypoint } from '../src/index.js';

const skillDir = '/nonexistent-skill';
const schema = (...names: string[]) => ({
  type: 'object',
  properties: Object.fromEntries(names.map((name) => [name, { type: 'string' }])),
});

/** Where `needle` stands in `haystack` (the n-th occurrence, 0-based). */
const at = (haystack: string, needle: string, nth = 0) => {
  let index = -1;
  for (let k = 0; k <= nth; k++) index = haystack.indexOf(needle, index + 1);
  return index;
};

describe('checkEntrypoint', () => {
  it.each([
    ['bash:cat -- {path}', ['path']],
    ['bash:{command}', ['command']],
    ['bash:n=3; echo $(( n + 1 )); printf "%s" {x}', ['x']],
    ['http:get https://api.example.com/items/{id}?lang=en', ['id']],
    ['node:tools.mjs#search', []],
    ['python:tools.get_weather', []],
  ])('finds nothing wrong with %j', (entrypoint, names) => {
    expect(checkEntrypoint(entrypoint, { skillDir, schema: schema(...names) })).toEqual([]);
  });

  it('returns every problem of a bash template, each with its offset into the whole string', () => {
    const entrypoint = 'bash:n={n}; echo $(( n + 1 )); eval {x}; cat -- {y}';
    const problems = checkEntrypoint(entrypoint, { skillDir, schema: schema('n', 'x') });
    expect(problems.map((p) => [p.code, p.offset])).toEqual([
      ['bad-template', at(entrypoint, '$((')],
      ['bad-template', at(entrypoint, '{x}')],
      ['unknown-placeholder', at(entrypoint, '{y}')],
    ]);
    expect(problems[0]!.message).toContain("evaluates 'n' as arithmetic");
    expect(problems[1]!.message).toContain("{x} is an argument of 'eval'");
    expect(problems[2]!.message).toContain("{y} is not a property of the tool's schema (properties: n, x)");
  });

  it('counts offsets from the start of the string, leading spaces included', () => {
    const entrypoint = '  bash:   echo $(( {n} ))';
    expect(checkEntrypoint(entrypoint, { skillDir, schema: schema('n') })).toEqual([
      expect.objectContaining({ code: 'bad-template', offset: at(entrypoint, '{n}') }),
    ]);
  });

  it('reports an unknown placeholder once, at its first use, for bash and http', () => {
    expect(checkEntrypoint('bash:cat -- {a} {a}', { skillDir, schema: schema() })).toEqual([
      expect.objectContaining({ code: 'unknown-placeholder', offset: 12 }),
    ]);
    const http = 'http:get https://api.example.com/{kind}/{id}';
    expect(checkEntrypoint(http, { skillDir, schema: schema('id') })).toEqual([
      expect.objectContaining({ code: 'unknown-placeholder', offset: at(http, '{kind}') }),
    ]);
    // without a schema nothing can be said about the names
    expect(checkEntrypoint('bash:cat -- {a}', { skillDir })).toEqual([]);
  });

  it('reports schemes and targets that cannot resolve', () => {
    expect(checkEntrypoint('ftp:weather/forecast', { skillDir })).toEqual([
      expect.objectContaining({ code: 'unsupported-scheme', offset: 0 }),
    ]);
    // grpc: without the port, and without the tool's proto: file
    expect(checkEntrypoint('grpc:weather.Forecast/Get', { skillDir })).toEqual([
      expect.objectContaining({ code: 'bad-entrypoint', offset: 5 }),
    ]);
    expect(checkEntrypoint('no scheme here', { skillDir })).toEqual([
      expect.objectContaining({ code: 'bad-entrypoint', offset: 0 }),
    ]);
    expect(checkEntrypoint('node:../outside.mjs#run', { skillDir })).toEqual([
      expect.objectContaining({ code: 'path-escape' }),
    ]);
    expect(checkEntrypoint('bash:echo {x', { skillDir })).toEqual([
      expect.objectContaining({ code: 'bad-template', offset: 10 }),
    ]);
  });

  it('is what resolveEntrypoint throws: its first problem, offset included', () => {
    const entrypoint = 'bash:v={v}; echo "${{!v}}"; cat -- {w}';
    const [first] = checkEntrypoint(entrypoint, { skillDir, schema: schema('v') });
    let thrown: EntrypointError | undefined;
    try {
      resolveEntrypoint(entrypoint, { skillDir, schema: schema('v') });
    } catch (error) {
      thrown = error as EntrypointError;
    }
    expect(thrown).toMatchObject({ code: first!.code, message: first!.message, offset: first!.offset });
  });
});
