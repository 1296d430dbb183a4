import type { Reporter } from './diagnostics.js';
import type { Field } from './frontmatter.js';
import { isRecord, setOwn } from './own.js';
import type { Source } from './source.js';

/**
 * The Agent Skills standard's own fields. The reference validator reads YAML with strictyaml, where every scalar is
 * text: `name: 123` is the name "123" there. So a number, a boolean (or, for free text, a list) where the standard
 * wants text is converted with a warning instead of refusing the skill; only what cannot be text is an error.
 */
export const SPEC_FIELDS = new Set([
  'name',
  'description',
  'license',
  'compatibility',
  'metadata',
  'allowed-tools',
]);

export interface SpecData {
  name?: string;
  description?: string;
  license?: string;
  compatibility?: string;
  metadata?: Record<string, unknown>;
  'allowed-tools'?: string | string[];
}

type Scalar = string | number | boolean;
const isScalar = (value: unknown): value is Scalar =>
  typeof value === 'string' || typeof value === 'number' || typeof value === 'boolean';
const kindOf = (value: unknown) =>
  Array.isArray(value)
    ? 'a list'
    : typeof value === 'string'
      ? 'text'
      : typeof value === 'number'
        ? 'a number'
        : typeof value === 'boolean'
          ? 'a boolean'
          : 'a mapping';

/** A number or boolean as the author wrote it (`1.10`, `0x1F`, `True`) when the source holds one plain token. */
function scalarSource(value: number | boolean, field: Field, source: Source): string {
  const written = source.text.slice(field.valueStart, field.valueEnd).trim();
  return /^[^\s#&!*|>'"[\]{},]+$/.test(written) ? written : String(value);
}

/** Reads one of `SPEC_FIELDS` into `data`; wrong types are reported. */
export function readSpecField(
  key: string,
  field: Field,
  source: Source,
  data: SpecData,
  reporter: Reporter,
): void {
  const at: [number, number] = [field.valueStart, field.valueEnd];
  const value = field.value;
  const converted = (text: string) =>
    reporter.report(
      'value-converted',
      `\`${key}\` is ${kindOf(value)}; it is read as the text \`${text}\` (the Agent Skills standard says text)`,
      ...at,
    );
  const invalid = (expected: string) =>
    reporter.report('invalid-type', `\`${key}\`: expected ${expected}`, ...at);

  if (key === 'metadata') {
    readMetadata(field, data, reporter);
    return;
  }
  if (key === 'allowed-tools') {
    if (typeof value === 'string') data[key] = value;
    else if (typeof value === 'number' || typeof value === 'boolean') {
      data[key] = scalarSource(value, field, source);
      converted(data[key]);
    } else if (Array.isArray(value) && value.every(isScalar)) {
      data[key] = value.map(String);
      if (!value.every((item) => typeof item === 'string')) converted(data[key].join(', '));
    } else invalid('a string or a list of strings');
    return;
  }
  // name, description, license, compatibility: text; free text (license, compatibility) may be a list of words.
  let text: string;
  if (typeof value === 'string') text = value;
  else if (typeof value === 'number' || typeof value === 'boolean') {
    text = scalarSource(value, field, source);
    converted(text);
  } else if (
    (key === 'license' || key === 'compatibility') &&
    Array.isArray(value) &&
    value.every(isScalar)
  ) {
    text = value.map(String).join(', ');
    converted(text);
  } else {
    invalid('text');
    return;
  }
  if (key === 'name' || key === 'description') {
    text = text.trim();
    if (text === '') {
      invalid('text that is not empty');
      return;
    }
  }
  data[key as 'name' | 'description' | 'license' | 'compatibility'] = text;
}

/** `metadata` maps names to text: numbers and booleans become text, lists and mappings are kept; both with a warning. */
function readMetadata(field: Field, data: SpecData, reporter: Reporter): void {
  const at: [number, number] = [field.valueStart, field.valueEnd];
  const value = field.value;
  if (!isRecord(value)) {
    reporter.report(
      'metadata-not-mapping',
      `\`metadata\` is ${kindOf(value)}, not a mapping of names to text; it is ignored`,
      ...at,
    );
    return;
  }
  const metadata: Record<string, unknown> = {};
  const notText: string[] = [];
  for (const [key, item] of Object.entries(value)) {
    if (typeof item !== 'string') notText.push(`\`${key}\``);
    setOwn(metadata, key, typeof item === 'number' || typeof item === 'boolean' ? String(item) : item);
  }
  if (notText.length > 0) {
    reporter.report(
      'metadata-not-string',
      `\`metadata\` values should be text: ${notText.join(', ')} (numbers and booleans are converted, lists and mappings kept)`,
      ...at,
    );
  }
  data.metadata = metadata;
}
