import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { VFileMessage } from 'vfile-message';
import { describe, expect, it } from 'vitest';
import { discoverAgents, discoverSkills, parseAgent, parseSkill, RULES } from '../src/index.js';

/** mulberry32: a small seeded PRNG, so a failing case can be replayed from its seed. */
export function prng(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

type Random = () => number;
const pick = <T>(random: Random, items: readonly T[]): T => items[Math.floor(random() * items.length)]!;
const int = (random: Random, max: number) => Math.floor(random() * max);

/** YAML and Markdown that have broken parsers before, or could: each is inserted as lines somewhere in the file. */
const INJECTIONS: ReadonlyArray<(random: Random) => string> = [
  () => 'x-anchor: &a [1, 2, 3]\nx-alias: *a',
  () =>
    'a: &a [x, x, x, x, x, x, x, x, x]\nb: &b [*a, *a, *a, *a, *a, *a, *a, *a, *a]\nc: [*b, *b, *b, *b, *b, *b, *b, *b, *b]',
  () => 'x-dangling: *nowhere',
  () => 'x-cycle: &c {self: *c}',
  () => '<<: {merged: yes}',
  () => 'x-fn: !!js/function "function () { return process.exit(1) }"',
  () => 'x-bin: !!binary aGVsbG8=',
  () => 'x-set: !!set {a, b}',
  () => 'x-date: !!timestamp 2001-12-14',
  () => 'x-py: !!python/object/apply:os.system ["id"]',
  (r) => `${pick(r, ['__proto__', 'constructor', 'toString', 'hasOwnProperty', 'valueOf'])}: {polluted: 1}`,
  (r) => `${pick(r, ['__proto__', 'constructor', 'toString'])}: x`,
  (r) => `metadata:\n  ${pick(r, ['__proto__', 'constructor', 'toString'])}: {a: 1}`,
  (r) => {
    const n = pick(r, [63, 65, 300, 5_000, 50_000]);
    return `x-deep: ${'['.repeat(n)}${']'.repeat(n)}`;
  },
  (r) => {
    const n = pick(r, [30, 70, 200]);
    return Array.from({ length: n }, (_, i) => `${' '.repeat(i)}k${i}:`).join('\n');
  },
  (r) =>
    `x-number: ${pick(r, ['1e999', '-1e999', '.nan', '.inf', '123456789012345678901234567890', '0x7fffffffffffffffff'])}`,
  (r) =>
    `${pick(r, ['name', 'description', 'license', 'compatibility', 'allowed-tools', 'version'])}: ${pick(r, ['123', '~', '', 'true', '[a, 1]', '{a: 1}', '1e999', '"\\u0000"'])}`,
  () => '\tname: tabbed',
  () => 'x-nul: "a\u0000b"',
  () => '%YAML 1.1',
  () => '---',
  () => '...',
  () => '? [complex, key]\n: value',
  () => `x-long: ${'tools '.repeat(5_000)}`,
  () => 'mcp_server:\n  transport: constructor\n  command: x\n  env: {__proto__: x}',
  () => 'mcp_server: {command: node, args: [./a.js], env: {toString: 1}, headers: {constructor: 2}}',
  () =>
    '## Tools\n\n### t\nentrypoint: bash:{x}\nschema:\n  type: object\n  properties:\n    __proto__: {type: string}',
  () => '### t2\ndescription: x\nentrypoint:\n  toString: 1\nschema: &s {type: object, properties: {a: *s}}',
  (r) => {
    const n = pick(r, [70, 2_000]);
    return `### t3\nentrypoint: bash:true\n\`\`\`json\n${'{"a":'.repeat(n)}1${'}'.repeat(n)}\n\`\`\``;
  },
  (r) => `## ${'*a '.repeat(pick(r, [10, 400, 3_000]))}Tools`,
  (r) => `${'> '.repeat(pick(r, [10, 2_000]))}## Tools`,
  () => 'Tools\n-----',
  // Agent files' keys (unknown keys to a skill).
  (r) =>
    `model: ${pick(r, ['{vendor: openai, base_url: http://x}', 'openai:../x', 'https://x', '[a]', '~', 'openai:'])}`,
  (r) =>
    `${pick(r, ['skills', 'tools', 'approve', 'subagents', 'handoffs'])}: ${pick(r, ['[__proto__, constructor]', '"a,,b  c"', '[*a]', '[[x]]', '{a: b}', '5', '[""]'])}`,
  (r) =>
    `${pick(r, ['max_turns', 'timeout', 'progressive'])}: ${pick(r, ['1e999', '.inf', '-0', '0x10', 'yes', '[1]'])}`,
  (r) =>
    `${pick(r, ['base_url', 'Base-URL', 'command', 'env', '__proto__'])}: ${pick(r, ['x', '~', '{a: 1}'])}`,
];

/** Inserts injection `index` before a random line, inside the frontmatter most of the time (where YAML is read). */
function inject(text: string, r: Random, index: number): [string, string] {
  const lines = text.split('\n');
  const close = lines.indexOf('---', 1);
  const at = close > 1 && r() < 0.7 ? 1 + int(r, close) : int(r, lines.length + 1);
  lines.splice(at, 0, INJECTIONS[index]!(r));
  return [lines.join('\n'), `inject #${index} before line ${at + 1}`];
}

/** One mutation of a text, with a label saying what it did (for the failure message). */
const MUTATIONS: ReadonlyArray<(text: string, random: Random) => [string, string]> = [
  (text, r) => {
    const at = int(r, text.length + 1);
    return [text.slice(0, at), `truncate at ${at}`];
  },
  (text, r) => {
    const bytes = Buffer.from(text, 'utf8');
    if (bytes.length === 0) return [text, 'flip nothing'];
    const at = int(r, bytes.length);
    bytes[at] = bytes[at]! ^ (1 << int(r, 8));
    return [bytes.toString('utf8'), `flip a bit of byte ${at}`];
  },
  (text, r) => {
    const lines = text.split('\n');
    const at = int(r, lines.length);
    lines.splice(at, 0, lines[at]!);
    return [lines.join('\n'), `duplicate line ${at + 1}`];
  },
  (text, r) => {
    const lines = text.split('\n');
    const at = int(r, lines.length);
    lines.splice(at, 1);
    return [lines.join('\n'), `delete line ${at + 1}`];
  },
  (text, r) => inject(text, r, int(r, INJECTIONS.length)),
  (text, r) => {
    const lines = text.split('\n');
    const at = int(r, lines.length);
    lines[at] = `\t${lines[at]!.trimStart()}`;
    return [lines.join('\n'), `tab-indent line ${at + 1}`];
  },
  (text) => [text.replaceAll('\r\n', '\n').replaceAll('\n', '\r\n'), 'CRLF'],
  (text) => [`\uFEFF${text}`, 'BOM'],
  (text, r) => {
    const at = int(r, text.length + 1);
    return [`${text.slice(0, at)}\u0000${text.slice(at)}`, `NUL at ${at}`];
  },
];

export interface Source {
  /** A folder name for it. */
  name: string;
  text: string;
}

export interface Mutant {
  name: string;
  text: string;
  /** Seed and mutations, to replay the case. */
  label: string;
}

/**
 * `count` mutants of the sources, each with one to three mutations; deterministic for a seed. Every other mutant starts
 * with the next injection in turn, so each one is tried several times, against different files and places.
 */
export function mutants(sources: readonly Source[], count: number, seed: number): Mutant[] {
  const out: Mutant[] = [];
  for (let i = 0; i < count; i++) {
    const random = prng(seed + i);
    const source = sources[i % sources.length]!;
    let text = source.text;
    const steps: string[] = [];
    if (i % 2 === 0) {
      const [next, what] = inject(text, random, (i / 2) % INJECTIONS.length);
      text = next;
      steps.push(what);
    }
    for (let n = int(random, 3) + (i % 2); n > 0; n--) {
      const [next, what] = pick(random, MUTATIONS)(text, random);
      text = next;
      steps.push(what);
    }
    out.push({
      name: `m${String(i).padStart(4, '0')}-${source.name}`,
      text,
      label: `seed ${seed + i}: ${source.name}: ${steps.join(', ')}`,
    });
  }
  return out;
}

function checkMessages(messages: readonly VFileMessage[], label: string) {
  for (const message of messages) {
    expect(Object.hasOwn(RULES, message.ruleId ?? ''), `${label}: unknown rule ${message.ruleId}`).toBe(true);
    // A parse-failed message means something threw that no rule foresaw: a defect this test is here to find.
    expect(message.ruleId, `${label}: ${message.reason}`).not.toBe('parse-failed');
    if (message.fatal === true)
      expect(message.line, `${label}: ${String(message)}`).toBeGreaterThanOrEqual(1);
  }
}

/**
 * Registers the mutation tests: every mutant through `parseSkill`, then through `discoverSkills` in batches, each batch
 * in one folder next to unmutated copies of the sources, which must all still load as they do alone.
 */
export function mutationSuite(title: string, load: () => Source[], options: { count: number; seed: number }) {
  describe(title, () => {
    const sources = load();
    const all = mutants(sources, options.count, options.seed);

    it(`parses ${options.count} mutants without throwing; every fatal message has a line`, () => {
      for (const mutant of all) {
        const result = parseSkill(mutant.text, { path: `/skills/${mutant.name}/SKILL.md` });
        checkMessages(result.messages, mutant.label);
        if (result.skill) expect(() => JSON.stringify(result.skill), mutant.label).not.toThrow();
      }
    });

    it('discovers them next to the unmutated skills, which still load', async () => {
      const root = await mkdtemp(join(tmpdir(), 'skill-parser-mutation-'));
      try {
        const originals = sources.map((source) => ({
          folder: `orig-${source.name}`,
          expected: parseSkill(source.text, { path: join(root, 'x', `orig-${source.name}`, 'SKILL.md') })
            .skill,
          source,
        }));
        const batchSize = 60;
        for (let start = 0; start < all.length; start += batchSize) {
          const batch = all.slice(start, start + batchSize);
          const dir = join(root, `batch-${start}`);
          for (const { folder, source } of originals) {
            await mkdir(join(dir, folder), { recursive: true });
            await writeFile(join(dir, folder, 'SKILL.md'), source.text);
          }
          for (const mutant of batch) {
            await mkdir(join(dir, mutant.name));
            await writeFile(join(dir, mutant.name, 'SKILL.md'), mutant.text);
          }
          const { skills, messages } = await discoverSkills(dir);
          const labels = new Map(batch.map((m) => [join(dir, m.name, 'SKILL.md'), m.label]));
          for (const message of messages)
            checkMessages([message], labels.get(message.file!) ?? message.file!);
          for (const { folder, expected } of originals) {
            if (!expected) continue;
            const loaded = skills.find((s) => s.dir === join(dir, folder));
            expect(loaded?.name, `${folder} in ${dir}`).toBe(expected.name);
            expect(loaded!.tools.map((t) => t.name)).toEqual(expected.tools.map((t) => t.name));
          }
        }
      } finally {
        await rm(root, { recursive: true, force: true });
      }
    });
  });
}

/**
 * The same for agent files: every mutant through `parseAgent`, then through `discoverAgents` in batches, each batch in
 * one agents folder next to unmutated copies of the sources, which must all still load as they do alone.
 */
export function agentMutationSuite(
  title: string,
  load: () => Source[],
  options: { count: number; seed: number },
) {
  describe(title, () => {
    const sources = load();
    const all = mutants(sources, options.count, options.seed);

    it(`parses ${options.count} mutants without throwing; every fatal message has a line`, () => {
      for (const mutant of all) {
        const result = parseAgent(mutant.text, { path: `/agents/${mutant.name}.md` });
        checkMessages(result.messages, mutant.label);
        if (result.agent) expect(() => JSON.stringify(result.agent), mutant.label).not.toThrow();
      }
    });

    it('discovers them next to the unmutated agents, which still load', async () => {
      const root = await mkdtemp(join(tmpdir(), 'skill-parser-agent-mutation-'));
      try {
        const originals = sources.map((source) => ({
          file: `orig-${source.name}.md`,
          expected: parseAgent(source.text, { path: join(root, `orig-${source.name}.md`) }).agent,
        }));
        const batchSize = 100;
        for (let start = 0; start < all.length; start += batchSize) {
          const batch = all.slice(start, start + batchSize);
          const dir = join(root, `batch-${start}`);
          await mkdir(dir);
          for (const [index, source] of sources.entries())
            await writeFile(join(dir, originals[index]!.file), source.text);
          for (const mutant of batch) await writeFile(join(dir, `${mutant.name}.md`), mutant.text);
          const { agents, messages } = await discoverAgents(dir);
          const labels = new Map(batch.map((m) => [join(dir, `${m.name}.md`), m.label]));
          for (const message of messages)
            checkMessages([message], labels.get(message.file!) ?? message.file!);
          for (const { file, expected } of originals) {
            if (!expected) continue;
            const loaded = agents.find((a) => a.file === join(dir, file));
            expect(loaded, `${file} in ${dir}`).toEqual({ ...expected, file: join(dir, file) });
          }
        }
      } finally {
        await rm(root, { recursive: true, force: true });
      }
    });
  });
}
