// A shortcut past the meta-schema for the schemas tools nearly always have: an object of typed, described
// properties, some required, maybe an enum or a bound. Checking one with the meta-schema validator costs tens of
// microseconds (a thousand skills spend a fifth of their discovery there); this walk answers "certainly valid" for
// such a schema in a few, and "don't know" for anything else, which then goes to the validator as before. It may only
// ever say yes where the meta-schema does (schema-checks.ts's META_SCHEMA; a test holds the two together), so it
// accepts a short list of keywords with values of the one shape each allows and nothing it would have to reason
// about: no `$ref`, no `pattern` (a regex format), no combinators, no numbers that are not finite.

const TYPES = new Set(['array', 'boolean', 'integer', 'null', 'number', 'object', 'string']);
/** Deeper schemas go to the validator: the walk is recursive and need not be clever about them. */
const MAX_DEPTH = 16;

const isRecord = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' &&
  value !== null &&
  !Array.isArray(value) &&
  Object.getPrototypeOf(value) === Object.prototype;
const isString = (value: unknown): boolean => typeof value === 'string';
const isNumber = (value: unknown): boolean => typeof value === 'number' && Number.isFinite(value);
const isCount = (value: unknown): boolean => Number.isInteger(value) && (value as number) >= 0;
const isScalar = (value: unknown): boolean =>
  value === null || typeof value === 'string' || typeof value === 'boolean' || isNumber(value);

/** A non-empty list of scalars, no two the same (`uniqueItems`); anything else is left to the validator. */
function isScalarSet(value: unknown, allowed: (item: unknown) => boolean = isScalar): boolean {
  if (!Array.isArray(value) || value.length === 0) return false;
  const seen = new Set<unknown>();
  for (const item of value) {
    if (!allowed(item) || seen.has(item)) return false;
    seen.add(item);
  }
  return true;
}

const isTypeName = (value: unknown): boolean => typeof value === 'string' && TYPES.has(value);

/** Keywords accepted, each with the only shape of value it is accepted with here. */
const KEYWORDS: Record<string, (value: unknown, depth: number) => boolean> = {
  type: (v) => isTypeName(v) || isScalarSet(v, isTypeName),
  title: isString,
  description: isString,
  $comment: isString,
  format: isString,
  default: () => true,
  examples: (v) => Array.isArray(v),
  enum: (v) => isScalarSet(v),
  const: () => true,
  required: (v) => (Array.isArray(v) && v.length === 0) || isScalarSet(v, isString),
  minimum: isNumber,
  maximum: isNumber,
  exclusiveMinimum: isNumber,
  exclusiveMaximum: isNumber,
  minLength: isCount,
  maxLength: isCount,
  minItems: isCount,
  maxItems: isCount,
  minProperties: isCount,
  maxProperties: isCount,
  uniqueItems: (v) => typeof v === 'boolean',
  readOnly: (v) => typeof v === 'boolean',
  items: (v, depth) => plainlyValid(v, depth + 1),
  additionalProperties: (v, depth) => typeof v === 'boolean' || plainlyValid(v, depth + 1),
  properties: (v, depth) => isRecord(v) && Object.values(v).every((sub) => plainlyValid(sub, depth + 1)),
};

/**
 * True when `schema` is certainly valid against the draft-07 meta-schema the tool checks use; false means only that
 * this walk does not know (the validator decides).
 */
export function plainlyValid(schema: unknown, depth = 0): boolean {
  if (typeof schema === 'boolean') return true;
  if (!isRecord(schema) || depth > MAX_DEPTH) return false;
  for (const key of Object.keys(schema)) {
    const accepts = Object.hasOwn(KEYWORDS, key) ? KEYWORDS[key] : undefined;
    if (accepts === undefined || !accepts(schema[key], depth)) return false;
  }
  return true;
}
