import { attributedNames } from './bash-attributes.js';
import { environmentProblems } from './bash-environment.js';
import { Flow, INPUT_PARAMETERS } from './bash-flow.js';
import type { OptionExposure } from './bash-options.js';
import { BashPass, type Problem } from './bash-pass.js';
import type { Item } from './bash-scan.js';
import { type CodeTakingWarning, codeTakingWarnings, type ScannedCommand } from './code-taking-commands.js';
import { EntrypointError } from './errors.js';
import { parseTemplate, placeholderNames, type TemplatePart } from './template.js';
import type { JsonSchemaObjectLike } from './types.js';

export type { Problem } from './bash-pass.js';

/** An expansion, or a variable bash sets from the values (`BASH_REMATCH` after `[[ {x} =~ … ]]`, `PWD` after `cd`). */
const MAY_HOLD_A_VALUE = new RegExp(
  `[$\`]|\\b(${[...INPUT_PARAMETERS].filter((n) => /^\\w+$/.test(n)).join('|')}|birdie_\\d+)\\b`,
);

export interface CompiledBash {
  script: string;
  /** Placeholder names in positional order: `names[0]` is `$1`. */
  names: string[];
  /** Placeholders standing where their command may read a value as an option (see bash-options.ts). */
  options: Map<string, OptionExposure>;
  /** Placeholders that reach arithmetic: the schema says integer, and the value is checked to be one when it runs. */
  integers: Set<string>;
}

export interface BashAnalysis extends CompiledBash {
  /** Every position problem found, in the order the scan met them (offsets into the template). */
  problems: Problem[];
  /** Every placeholder occurrence, with its offset into the template. */
  placeholders: { name: string; offset: number }[];
  /** Every simple command of the first pass, in the order they end (read-only: bash-simple-commands.ts). */
  commands: ScannedCommand[];
  /** Commands that can run a value as code (a warning, and approval by default). */
  warnings: CodeTakingWarning[];
}

/**
 * Analyses and compiles a `bash:` template. Structural errors (a lone brace, an unterminated quote) throw
 * `bad-template`; a value standing where bash would evaluate it is a problem in the list, and scanning goes on.
 *
 * Two passes over the same scanner: the first records which variables the placeholders flow into (assignments,
 * `read`, `for`, function arguments …); the second treats every expansion of such a variable like the placeholder
 * itself and checks each place where bash evaluates text (arithmetic, subscripts, `${!x}`, `eval` …).
 */
export function analyseBashTemplate(template: string, schema?: JsonSchemaObjectLike): BashAnalysis {
  // The schema counts only through the placeholders it makes integers, so those and the template are the whole key.
  const key = JSON.stringify([template, integerProperties(schema)]);
  const kept = analyses.get(key);
  if (kept) {
    analyses.delete(key);
    analyses.set(key, kept);
    return kept;
  }
  const made = analyse(template, schema);
  for (const list of [made.names, made.problems, made.placeholders, made.warnings, made.commands])
    Object.freeze(list);
  const analysis = Object.freeze(made);
  analyses.set(key, analysis);
  if (analyses.size > ANALYSES_KEPT) analyses.delete(analyses.keys().next().value as string);
  return analysis;
}

/**
 * Analyses by template, newest last (a bounded LRU). Every reload of the skills checks every tool's template again,
 * unchanged ones and ones many tools share included; an analysis is a pure function of its key and read-only to every
 * caller (frozen; its maps and sets are only read), so it is shared. A template that throws is never kept.
 */
const ANALYSES_KEPT = 1_000;
const analyses = new Map<string, BashAnalysis>();

/** The names of the schema's integer properties, in the schema's order: what the analysis reads of the schema. */
function integerProperties(schema: JsonSchemaObjectLike | undefined): string[] {
  const properties = schema?.properties;
  if (!properties) return [];
  return Object.keys(properties).filter((name) => isIntegerProperty(properties[name]));
}

function analyse(template: string, schema?: JsonSchemaObjectLike): BashAnalysis {
  const where = `bash:${template}`;
  const parts = parseTemplate(template, where);
  const names = placeholderNames(parts);
  const { items, offsets } = toItems(parts);
  const text = parts.map((part) => (part.kind === 'text' ? part.text : '\u0001')).join('');
  const integer = (name: string) => isIntegerProperty(schema?.properties?.[name]);
  const settings = {
    names,
    where,
    attributed: attributedNames(text),
    integer,
    templateLength: template.length,
  };
  const placeholders = parts.flatMap((p) =>
    p.kind === 'placeholder' ? [{ name: p.name, offset: p.offset }] : [],
  );

  const commands: ScannedCommand[] = [];
  const onCommand = (source: ScannedCommand['source'], pipeInput: boolean) =>
    commands.push({ source, pipeInput });
  const first = new BashPass(items, offsets, {
    ...settings,
    flow: new Flow(names),
    recording: true,
    onCommand,
  });
  let result = first.run();
  let environment: Problem[] | undefined;
  // A value reaches an evaluating context only through an expansion, an assigned variable or one that bash sets from
  // input: without any, the first pass (which checked every placeholder where it stands) is the whole story.
  if (names.length > 0 && (first.flow.assigns() || MAY_HOLD_A_VALUE.test(text))) {
    first.flow.solve();
    environment = environmentProblems(first.flow);
    result = new BashPass(items, offsets, { ...settings, flow: first.flow, recording: false }).run();
  }
  const problems = [...result.problems, ...(environment ?? [])];
  const reserved = /\bbirdie_\d+\b/.exec(text);
  if (reserved && names.length > 0) {
    problems.push({
      message: `${reserved[0]} is the script's copy of an argument: a template that reads or writes it bypasses its placeholder; use another name`,
      offset: offsets[reserved.index] ?? 0,
    });
  }
  const aliases = text.includes('expand_aliases') ? /\bexpand_aliases\b/.exec(text) : null;
  if (aliases && names.length > 0) {
    problems.push({
      message:
        'aliases are expanded (shopt -s expand_aliases): an alias can turn any word into eval, so a value cannot be followed',
      offset: offsets[aliases.index] ?? 0,
    });
  }
  return {
    script: argumentPrologue(names.length) + result.script,
    names,
    options: result.options,
    integers: result.integers,
    problems: dedupe(problems),
    placeholders,
    warnings: codeTakingWarnings(commands, names.length > 0),
    commands,
  };
}

/** Compiles a template, throwing `bad-template` for its first problem. */
export function compileBashTemplate(template: string, schema?: JsonSchemaObjectLike): CompiledBash {
  const analysis = analyseBashTemplate(template, schema);
  const problem = analysis.problems[0];
  if (problem) {
    throw new EntrypointError('bad-template', `bash:${template}: ${problem.message}`, {
      offset: problem.offset,
    });
  }
  return analysis;
}

/** The shell variable that holds the value of placeholder number `index` (1-based). */
export function argumentVariable(index: number): string {
  return `birdie_${index}`;
}

/** `type: integer` (alone or with null): only a plain decimal integer is accepted when the tool runs. */
export function isIntegerProperty(property: unknown): boolean {
  const type = (property as { type?: unknown } | undefined)?.type;
  if (type === 'integer') return true;
  return (
    Array.isArray(type) && type.includes('integer') && type.every((t) => t === 'integer' || t === 'null')
  );
}

/**
 * Copies the positional parameters into variables first: inside a function body `$1` is the function's own
 * argument, and `set --` or `shift` in a template would move them; the copies keep each value where it belongs.
 * A plain assignment neither splits nor re-parses the value.
 */
const prologues: string[] = [];

function argumentPrologue(count: number): string {
  if (count === 0) return '';
  if (prologues[count] !== undefined) return prologues[count];
  const copies = Array.from({ length: count }, (_, k) => `${argumentVariable(k + 1)}=\${${k + 1}}`);
  prologues[count] = `${copies.join(' ')}; `;
  return prologues[count];
}

function toItems(parts: readonly TemplatePart[]): { items: Item[]; offsets: number[] } {
  const items: Item[] = [];
  const offsets: number[] = [];
  for (const part of parts) {
    if (part.kind === 'text') {
      items.push(...part.text);
      offsets.push(...part.offsets);
    } else {
      items.push({ name: part.name, offset: part.offset });
      offsets.push(part.offset);
    }
  }
  return { items, offsets };
}

function dedupe(problems: Problem[]): Problem[] {
  const seen = new Set<string>();
  return problems.filter((p) => {
    const key = `${p.offset}\u0000${p.message}`;
    if (seen.has(key)) return false;
    seen.add(key);
    return true;
  });
}
