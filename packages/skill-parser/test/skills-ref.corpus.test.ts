import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { discoverSkills } from '../src/index.js';
import { corpus } from './corpus.js';

/**
 * birdie next to the Agent Skills reference validator (`skills-ref validate`) on the 55 edge cases of
 * corpus/skills-ref. For each case: what birdie answers (verdict, then every message as `ruleId line:column`), and why
 * it differs from the reference where it does. The README's comparison table is generated from this list and the
 * corpus's verdicts.json, and checked here: `UPDATE_README=1 pnpm test:corpus` rewrites it.
 */
const NAME_RULES =
  'The standard’s name rules are warnings in birdie, so skills written for other clients (and display names such as `DuckDuckGo` in original birdie skills) still load.';
const LENGTH_RULES =
  'The standard’s length limits are warnings in birdie: the skill loads and the author is told.';
const UNKNOWN_KEYS =
  'The reference allows only `name`, `description`, `license`, `allowed-tools`, `metadata` and `compatibility`; birdie ignores other keys with an info, since clients (birdie included) add their own.';
const CONVERTED =
  'Same verdict; strictyaml reads every scalar as text, so birdie converts the value to text too, with a warning.';

const CASES: Record<string, [birdie: string, why: string]> = {
  '01-no-frontmatter': ['invalid: missing-frontmatter 1:1', ''],
  '02-unterminated': ['invalid: unclosed-frontmatter 1:1', ''],
  '03-name-uppercase': ['valid: name-format 2:7', NAME_RULES],
  '04-name-consecutive-hyphens': ['valid: name-format 2:7', NAME_RULES],
  '05-name-leading-hyphen': ['valid: name-format 2:7', NAME_RULES],
  '06-name-trailing-hyphen': ['valid: name-format 2:7', NAME_RULES],
  '07-name-65-chars': ['valid: name-too-long 2:7', NAME_RULES],
  '08-name-64-chars(ok)': ['valid', ''],
  '09-name-underscore': ['valid: name-format 2:7', NAME_RULES],
  '10-name-unicode-letters': ['valid', ''],
  '11-missing-name': ['invalid: missing-name 1:1', ''],
  '12-missing-description': ['invalid: missing-description 1:1', ''],
  '13-description-empty': ['invalid: invalid-type 3:14', ''],
  '14-description-1025': ['valid: description-too-long 3:14', LENGTH_RULES],
  '15-description-1024(ok)': ['valid', ''],
  '16-compatibility-501': ['valid: compatibility-too-long 4:16', LENGTH_RULES],
  '17-compatibility-500(ok)': ['valid', ''],
  '18-unknown-top-level-field': ['valid: unknown-key 4:1', UNKNOWN_KEYS],
  '19-metadata-nonstring-values': [
    'valid: metadata-not-string 5:3',
    'Same verdict; birdie converts the number and the boolean to text and warns (the standard maps names to text).',
  ],
  '20-metadata-nested-mapping': [
    'valid: metadata-not-string 5:3',
    'Same verdict; birdie keeps the nested mapping and warns.',
  ],
  '21-metadata-not-mapping': [
    'valid: metadata-not-mapping 4:11',
    'Same verdict; birdie ignores the value and warns.',
  ],
  '22-allowed-tools-string': ['valid', ''],
  '23-allowed-tools-block-list': ['valid', ''],
  '24-allowed-tools-number': ['valid: value-converted 4:16', CONVERTED],
  '25-yaml-colon-in-plain-value': ['invalid: yaml-syntax 3:14', ''],
  '26-yaml-unclosed-flow': ['invalid: yaml-syntax 3:14', ''],
  '27-yaml-tab-indent': ['invalid: yaml-syntax 5:1', ''],
  '28-bom': [
    'valid: byte-order-mark 1:1',
    'birdie skips a byte order mark before the opening `---` (Windows editors write one), with a warning; the reference does not, and finds no frontmatter.',
  ],
  '29-crlf': ['valid', ''],
  '30-name-folder-mismatch': ['valid: name-folder-mismatch 2:7', NAME_RULES],
  '31-duplicate-key': ['invalid: duplicate-key 4:1', ''],
  '32-frontmatter-list': ['invalid: frontmatter-not-mapping 2:1', ''],
  '33-empty-frontmatter': [
    'invalid: missing-name 1:1, missing-description 1:1',
    'Same verdict; birdie names the two missing keys.',
  ],
  '34-name-number': ['valid: value-converted 2:7', CONVERTED],
  '35-name-empty': ['invalid: invalid-type 2:7', ''],
  '36-lowercase-skill.md': ['valid', ''],
  '37-SKILL.MD-uppercase-ext': [
    'valid: skill-file-name 1:1',
    'With a warning, birdie finds `SKILL.md`, `SKILL.MD` and `skill.md` (the original birdie corpus uses `SKILL.MD`); the reference accepts the first and the last.',
  ],
  '38-leading-blank-line': ['invalid: missing-frontmatter 1:1', ''],
  '39-triple-dash-in-description': [
    'valid',
    'Same verdict; the reference splits the file on `---` and reads the description as "Convert a", birdie reads it whole.',
  ],
  '40-flow-list-tags': [
    'valid: flow-style-yaml 4:16',
    'The reference reads YAML with strictyaml, which refuses flow style (`[Read, Grep]`); YAML and the specification allow it, so birdie notes it (an info).',
  ],
  '41-description-block-scalar(ok)': ['valid', ''],
  '42-compatibility-number': ['valid: value-converted 4:16', CONVERTED],
  '43-name-null': [
    'invalid: missing-name 2:1',
    'Same verdict for another reason: strictyaml reads `~` as the text "~", an invalid name; in YAML it is null, so birdie reports a name without a value, at its key.',
  ],
  '44-description-whitespace-only': ['invalid: invalid-type 3:14', ''],
  '45-name-whitespace-padded': ['valid', ''],
  '46-bom+uppercase-name': [
    'valid: byte-order-mark 1:1, name-format 2:7',
    'As in 28 (byte order mark), then as in 03 (a warning).',
  ],
  '47-crlf+description-1025': ['valid: description-too-long 3:14', LENGTH_RULES],
  '48-crlf+unknown-key-line4': ['valid: unknown-key 4:1', UNKNOWN_KEYS],
  '49-name-key-without-value': ['invalid: missing-name 2:1', ''],
  '50-bom+crlf+yaml-error': [
    'invalid: byte-order-mark 1:1, yaml-syntax 3:14',
    'Same verdict; birdie gets past the byte order mark (see 28) to the YAML error.',
  ],
  '51-closing-fence-with-trailing-spaces': ['valid', ''],
  '52-closing-fence-dots': ['invalid: unclosed-frontmatter 1:1', ''],
  '53-opening-fence-4-dashes': [
    'invalid: missing-frontmatter 1:1',
    'Same verdict; `----` is not a frontmatter fence for birdie (nor for remark-frontmatter), while the reference reads past it into invalid YAML.',
  ],
  '54-license-list': ['valid: value-converted 5:3', CONVERTED],
  '55-allowed_tools-underscore': [
    'valid',
    'birdie reads `allowed_tools` as `allowed-tools` (skills written for the original birdie use it); the reference allows only its six field names.',
  ],
};

interface Verdict {
  case: string;
  reference: 'valid' | 'invalid';
  reference_message: string;
}

const root = join(corpus, 'skills-ref');
const verdicts = JSON.parse(readFileSync(join(root, 'verdicts.json'), 'utf8')) as Verdict[];

async function birdieVerdict(name: string, strict = false): Promise<string> {
  const { skills, messages } = await discoverSkills(join(root, name), { strict });
  const list = messages.map((m) => `${m.ruleId} ${m.line}:${m.column}`).join(', ');
  return `${skills.length === 1 ? 'valid' : 'invalid'}${list ? `: ${list}` : ''}`;
}

const cell = (text: string) => text.replaceAll('|', '\\|').replaceAll('\n', ' ');

function table(): string {
  const rows = verdicts.map((v) => {
    const [birdie, why] = CASES[v.case]!;
    const message =
      v.reference_message.length > 90 ? `${v.reference_message.slice(0, 89)}…` : v.reference_message;
    const reference = v.reference === 'valid' ? 'valid' : `invalid: ${message}`;
    const [verdict, rules = ''] = birdie.split(': ');
    const ours = rules
      ? `${verdict}: ${rules
          .split(', ')
          .map((r) => `\`${r.split(' ')[0]}\` ${r.split(' ')[1]}`)
          .join(', ')}`
      : verdict!;
    return `| ${cell(v.case)} | ${cell(reference)} | ${cell(ours)} | ${cell(why || '—')} |`;
  });
  return ['| case | reference validator | birdie | why they differ |', '|---|---|---|---|', ...rows].join(
    '\n',
  );
}

describe('corpus/skills-ref: birdie next to the Agent Skills reference validator', () => {
  it('covers exactly the 55 cases of verdicts.json', () => {
    const folders = readdirSync(root).filter((n) => /^\d\d-/.test(n));
    expect(verdicts.map((v) => v.case).sort()).toEqual(folders.sort());
    expect(Object.keys(CASES).sort()).toEqual(folders.sort());
  });

  it.each(verdicts.map((v) => [v.case, v] as const))('%s', async (name, verdict) => {
    const [expected, why] = CASES[name]!;
    expect(await birdieVerdict(name)).toBe(expected);
    // birdie never refuses what the reference accepts, and every difference in verdict is explained.
    if (verdict.reference === 'valid') expect(expected).toMatch(/^valid/);
    if (!expected.startsWith(verdict.reference)) expect(why).not.toBe('');
  });

  // `birdie skills check --strict`: the reference's verdict on every case (the cases where they differ for a reason
  // other than strictness — YAML's `~`, a `----` fence — agree in verdict too).
  it.each(verdicts.map((v) => [v.case, v] as const))('strict: %s', async (name, verdict) => {
    expect((await birdieVerdict(name, true)).split(':')[0]).toBe(verdict.reference);
  });

  it('the README holds the table generated from these cases', () => {
    const readme = fileURLToPath(new URL('../README.md', import.meta.url));
    const text = readFileSync(readme, 'utf8');
    const start = '<!-- skills-ref table: generated by test/skills-ref.corpus.test.ts -->';
    const end = '<!-- end of skills-ref table -->';
    const generated = `${start}\n\n${table()}\n\n${end}`;
    const current = text.slice(text.indexOf(start), text.indexOf(end) + end.length);
    if (process.env.UPDATE_README === '1' && current !== generated) {
      writeFileSync(readme, text.replace(current, generated));
      return;
    }
    expect(current).toBe(generated);
  });
});
