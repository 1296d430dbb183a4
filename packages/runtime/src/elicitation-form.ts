import type { McpElicitationRequest } from '@birdie/graph';
import { decimalNumber } from './decimal.js';

type Choice = { const: unknown; title?: string };
type Property = {
  type?: string;
  items?: { enum?: unknown[]; anyOf?: Choice[]; oneOf?: Choice[] };
  minItems?: number;
  title?: string;
  description?: string;
  enum?: unknown[];
  enumNames?: string[];
  oneOf?: Choice[];
  default?: unknown;
};

/**
 * One field of an MCP server's form, as any front end asks it: several of a list (`many`), yes/no (`boolean`), one
 * of a list (`choice`), or typed text (`text`, `number`, `integer`). `atLeastOne`: a `many` field that must have one
 * picked (required, or `minItems` over 0).
 */
export interface FormField {
  key: string;
  title: string;
  description?: string;
  required: boolean;
  atLeastOne?: boolean;
  kind: 'many' | 'boolean' | 'choice' | 'text' | 'number' | 'integer';
  choices: Array<{ value: string; label: string }>;
  default?: unknown;
}

const choicesOf = (choices: Choice[]) =>
  choices.map((o) => ({ value: String(o.const), label: o.title ?? String(o.const) }));

/** The fields of an elicitation's form (MCP's flat schema: strings, numbers, booleans, enums), in its order. */
export function formFields(request: McpElicitationRequest): FormField[] {
  const schema = (
    request as { requestedSchema?: { properties?: Record<string, Property>; required?: string[] } }
  ).requestedSchema;
  const required = new Set(schema?.required ?? []);
  return Object.entries(schema?.properties ?? {}).map(([key, property]) => {
    const field = {
      key,
      title: property.title ?? key,
      ...(property.description ? { description: property.description } : {}),
      required: required.has(key),
      ...(property.default !== undefined ? { default: property.default } : {}),
    };
    const many = property.type === 'array' ? (property.items?.anyOf ?? property.items?.oneOf) : undefined;
    const manyChoices = many
      ? choicesOf(many)
      : property.type === 'array'
        ? property.items?.enum?.map((v) => ({ value: String(v), label: String(v) }))
        : undefined;
    if (manyChoices)
      return {
        ...field,
        kind: 'many',
        choices: manyChoices,
        atLeastOne: (property.minItems ?? 0) > 0 || field.required,
      };
    if (property.type === 'boolean') return { ...field, kind: 'boolean', choices: [] };
    const choices = property.oneOf
      ? choicesOf(property.oneOf)
      : property.enum?.map((v, i) => ({ value: String(v), label: property.enumNames?.[i] ?? String(v) }));
    if (choices && choices.length > 0) return { ...field, kind: 'choice', choices };
    const kind = property.type === 'number' || property.type === 'integer' ? property.type : 'text';
    return { ...field, kind, choices: [] };
  });
}

/** Why `text` typed for a text or number field cannot be sent; undefined when it can. */
export function fieldTextProblem(field: FormField, text: string): string | undefined {
  if (text === '') return field.required && field.default === undefined ? 'required' : undefined;
  if (field.kind !== 'number' && field.kind !== 'integer') return undefined;
  const number = decimalNumber(text);
  if (!Number.isFinite(number)) return 'a number, please';
  if (field.kind === 'integer' && !Number.isInteger(number)) return 'a whole number, please';
  return undefined;
}

/** The value sent for text typed in a text or number field: nothing typed is the default; numbers as numbers. */
export function fieldTextValue(field: FormField, text: string): unknown {
  if (text === '') return field.default;
  return field.kind === 'number' || field.kind === 'integer' ? decimalNumber(text) : text;
}
