import {
  CONFIG_FIELDS,
  type ConfigField,
  type ConfigLayer,
  configLayerSchema,
  MODEL_TIERS,
} from './config-schema.js';
import { ProviderError } from './errors.js';
import type { JsonPath, JsonPlace } from './json-paths.js';
import { isVendor, VENDOR_NAMES } from './vendors.js';

/** Where a raw provider object was written, for messages: `file /x.json` or `inline LLM_PROVIDER_CONFIG`. */
export interface LayerOrigin {
  where: string;
  file?: string;
  /** Path of the provider object inside the document (`['provider']` in a sectioned file). */
  prefix?: JsonPath;
  /** Positions in the document; files have them, so every message says line and column. */
  placeOf?: (path: JsonPath) => JsonPlace;
}

/** `file /x.json at line 3, column 5` when positions are known, else the bare origin. */
export function describePlace(origin: LayerOrigin, path: JsonPath): { text: string; place?: JsonPlace } {
  if (!origin.placeOf) return { text: origin.where };
  const place = origin.placeOf([...(origin.prefix ?? []), ...path]);
  return { text: `${origin.where} at line ${place.line}, column ${place.column}`, place };
}

export function invalidConfig(
  origin: LayerOrigin,
  path: JsonPath,
  reason: string,
  field?: string,
): ProviderError {
  const { text, place } = describePlace(origin, path);
  return new ProviderError('config-invalid', `Invalid config in ${text}: ${reason}`, {
    file: origin.file,
    line: place?.line,
    column: place?.column,
    field,
  });
}

/** Checks one provider object (a file's provider section, or inline JSON): known fields, valid values. */
export function checkProviderObject(raw: unknown, origin: LayerOrigin): ConfigLayer {
  if (raw === null || typeof raw !== 'object' || Array.isArray(raw)) {
    const what = origin.prefix?.length
      ? `"${origin.prefix.join('.')}" must be a JSON object`
      : 'must be a JSON object';
    throw invalidConfig(origin, [], what);
  }
  const object = raw as Record<string, unknown>;
  checkVendorName(object.vendor, origin, ['vendor']);
  const models = object.models;
  if (models !== null && typeof models === 'object' && !Array.isArray(models)) {
    for (const [tier, value] of Object.entries(models as Record<string, unknown>)) {
      if (value !== null && typeof value === 'object' && !Array.isArray(value))
        checkVendorName((value as Record<string, unknown>).vendor, origin, ['models', tier, 'vendor']);
    }
  }
  const result = configLayerSchema.safeParse(object);
  if (result.success) return result.data;
  const issue = result.error.issues[0]!;
  const dotted = (path: JsonPath) => [...(origin.prefix ?? []), ...path].join('.');
  if (issue.code === 'unrecognized_keys') {
    const key = issue.keys[0] ?? '';
    const path = [...(issue.path as JsonPath), key];
    if (issue.path.length === 1 && issue.path[0] === 'models') {
      throw invalidConfig(
        origin,
        path,
        `unknown model tier ${JSON.stringify(dotted(path))} (allowed: ${MODEL_TIERS.join(', ')})`,
        path.join('.'),
      );
    }
    throw invalidConfig(
      origin,
      path,
      `unknown field ${JSON.stringify(dotted(path))} (allowed: ${CONFIG_FIELDS.join(', ')}${issue.path.length === 0 ? ', models' : ''})`,
      path.join('.'),
    );
  }
  const field = issue.path.map(String).join('.');
  const value = (issue.path as JsonPath).reduce<unknown>(
    (at, key) => (at !== null && typeof at === 'object' ? (at as Record<string, unknown>)[key] : undefined),
    object,
  );
  // The key is never echoed, even when it is the wrong type.
  const got = issue.path.at(-1) === 'api_key' ? '' : ` (got ${JSON.stringify(value)})`;
  throw invalidConfig(
    origin,
    issue.path as JsonPath,
    `${dotted(issue.path as JsonPath)} ${issue.message}${got}`,
    field,
  );
}

function checkVendorName(vendor: unknown, origin: LayerOrigin, path: JsonPath): void {
  if (typeof vendor !== 'string' || isVendor(vendor)) return;
  const { text, place } = describePlace(origin, path);
  throw new ProviderError(
    'unknown-vendor',
    `Unknown vendor ${JSON.stringify(vendor)} in ${text}; use one of: ${VENDOR_NAMES.join(', ')}`,
    { file: origin.file, line: place?.line, column: place?.column, field: path.join('.') },
  );
}

/** Validates one value the way a layer's field is validated (environment values, defaults from variables). */
export function checkFieldValue(
  field: ConfigField,
  value: unknown,
  where: string,
  raw: unknown = value,
): void {
  const result = configLayerSchema.safeParse({ [field]: value });
  if (result.success) return;
  const issue = result.error.issues[0]!;
  throw new ProviderError(
    'config-invalid',
    `Invalid config in ${where}: ${field} ${issue.message} (got ${JSON.stringify(raw)})`,
    { field, envVar: where.startsWith('env ') ? where.slice(4) : undefined },
  );
}
