import { describe, expect, it } from 'vitest';
import { parseDocument } from 'yaml';
import { MAX_YAML_DEPTH } from './limits.js';
import { composeYaml } from './yaml.js';

const errorsOf = (text: string) => {
  const composed = composeYaml(text);
  if (!composed.ok) throw new Error('unexpectedly deep');
  return composed.doc.errors.map((e) => [e.code, e.pos[0], e.pos[1]]);
};

describe('composeYaml', () => {
  it.each([
    'a: 1\nb: 2\na: 3\n',
    'a: {x: 1, y: 2, x: 3}\n',
    'a:\n  - {k: 1, k: 2}\n  - b: 1\n    b: 2\n',
    '1: a\n"1": b\n1: c\n',
    ': a\n: b\n',
    '&x a: 1\na: 2\n',
    '!!str a: 1\na: 2\n',
    '.nan: 1\n.nan: 2\n',
    '[a]: 1\n[a]: 2\n',
    'a: &k 1\n*k : 2\n*k : 3\n',
    'a: 1\nb: [\na: 2\n',
    'x: 1\nx: 2\nx: 3\n---\nx: 4\n',
  ])('reports what yaml reports with uniqueKeys: true, at the same places: %j', (text) => {
    const reference = parseDocument(text, { prettyErrors: false, uniqueKeys: true }).errors.map((e) => [
      e.code,
      e.pos[0],
      e.pos[1],
    ]);
    const sort = (errors: unknown[][]) =>
      [...errors].sort(
        (a, b) => (a[1] as number) - (b[1] as number) || String(a[0]).localeCompare(String(b[0])),
      );
    expect(sort(errorsOf(text))).toEqual(sort(reference));
  });

  it('finds the first collection past the depth limit, in flow and block style', () => {
    const flow = `x: ${'['.repeat(MAX_YAML_DEPTH + 5)}`;
    expect(composeYaml(flow)).toEqual({ ok: false, deepAt: 3 + MAX_YAML_DEPTH - 1 });
    const block = Array.from({ length: MAX_YAML_DEPTH + 1 }, (_, i) => `${' '.repeat(i)}k:`).join('\n');
    const lines = block.split('\n');
    const last = lines.slice(0, MAX_YAML_DEPTH).join('\n').length + 1 + MAX_YAML_DEPTH;
    expect(composeYaml(block)).toEqual({ ok: false, deepAt: last });
    expect(composeYaml(`x: ${'['.repeat(MAX_YAML_DEPTH - 1)}${']'.repeat(MAX_YAML_DEPTH - 1)}`).ok).toBe(
      true,
    );
  });
});
