import { describe, expect, it } from 'vitest';
import { type Node, parse, parseDocument, type Scalar, type YAMLMap } from 'yaml';
import { fastYaml, fastYamlFields } from './fast-yaml.js';

const accepted = [
  'schema:\n  type: object\n  properties:\n    path:\n      type: string\n      description: Path to the file to read\n  required: [path]\n',
  'schema:\n  type: object\n  properties:\n    n: {type: integer, default: 5, minimum: -1}\n    f: {type: number, default: 1.5e3}\n  required: []\n',
  'schema:\n  type: object\n  required:\n  - a\n  - b\n  properties:\n    a:\n      type: string\n    b:\n      enum: [x, y, 3, true, null]\n',
  'schema:\n  properties:\n    a:\n      description: "quoted: with colon"\n      title: \'single # quoted\'\n      url: http://example.com/a#b\n      c: C# and F#\n',
  'timeout: 30\n',
  'timeout: +12\n',
  'retries: 007\n',
  'approval: never\n',
  'x: ~\ny: Null\nz: FALSE\nw:\n',
  'schema:\r\n  type: object\r\n  required: [a, ]\r\n',
  "k: it's fine\n",
  'a:\n    deep:\n        deeper: 1\nb: 2\n',
];

const refused = [
  'schema:\n  type: object # a comment\n',
  '# comment\nschema: {}\n',
  'a: &anchor 1\nb: *anchor\n',
  'a: !!str 1\n',
  'a: |\n  block\n',
  'a: >-\n  folded\n',
  'a: "escaped \\" quote"\n',
  'a: 0x1F\n',
  'a: .inf\n',
  'a:\tb\n',
  'a: 1\na: 2\n',
  'a: b: c\n',
  'a: plain\n  continued\n',
  'a:\n  - b: 1\n',
  'a: [[1, 2]]\n',
  'a: {b: {c: 1}}\n',
  'true: 1\n',
  '? complex\n: key\n',
  'a: [unclosed\n',
  'a:b\n',
  '  indented: first\n',
  '---\na: 1\n',
  'a: "x" y\n',
  'a: -1x\n',
];

describe('fastYaml', () => {
  it.each(accepted.map((t) => [JSON.stringify(t), t]))('reads %s exactly as yaml does', (_, text) => {
    const fast = fastYaml(text);
    expect(fast).toBeDefined();
    expect(fast).toEqual(parse(text));
  });

  it.each(refused.map((t) => [JSON.stringify(t), t]))('leaves %s to yaml', (_, text) => {
    expect(fastYaml(text)).toBeUndefined();
  });
});

describe('fastYamlFields', () => {
  const frontmatters = [
    'name: demo\ndescription: "A demo: quoted"\ntags: [a, b]\n',
    'name: demo\ntriggers:\n  - one\n  - two words\nenabled_by_default: false\n',
    'name: demo\nmetadata:\n  author: me\n  version: 2\nlicense: MIT\n',
    'name: demo\r\ndescription: CRLF lines\r\ntags:\r\n- x\r\n',
  ];

  it.each(frontmatters.map((t) => [JSON.stringify(t), t]))(
    'places keys and values where yaml does: %s',
    (_, text) => {
      const doc = parseDocument(text);
      const expected = new Map<string, unknown>();
      for (const pair of (doc.contents as YAMLMap<Scalar, Node>).items) {
        const key = String(pair.key.value);
        expected.set(key, {
          value: doc.toJS()[key],
          keyStart: pair.key.range![0],
          keyEnd: pair.key.range![1],
          valueStart: pair.value!.range![0],
        });
      }
      const fast = fastYamlFields(text)!;
      const actual = new Map(
        [...fast].map(([k, f]) => [
          k,
          { value: f.value, keyStart: f.keyStart, keyEnd: f.keyEnd, valueStart: f.valueStart },
        ]),
      );
      expect(actual).toEqual(expected);
    },
  );
});
