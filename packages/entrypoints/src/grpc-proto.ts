import { realpathSync, statSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, isAbsolute, relative, resolve, sep } from 'node:path';
import type { MethodDefinition, PackageDefinition } from '@grpc/proto-loader';

/**
 * Loading `.proto` files (through `@grpc/proto-loader`, which is loaded on the first `grpc:` tool only, so that
 * start-up never pays for protobufjs). Synchronous, because `checkEntrypoint` is.
 */
const require = createRequire(import.meta.url);
let loader: typeof import('@grpc/proto-loader') | undefined;

/** How messages become JSON: field names as written, 64-bit integers and enums as strings, bytes as base64. */
export const LOADER_OPTIONS = {
  keepCase: true,
  longs: String,
  enums: String,
  bytes: String,
  defaults: true,
  oneofs: true,
} as const;

export interface ProtoField {
  name: string;
  label: string;
  type: string;
  typeName: string;
}

interface Descriptor {
  name?: string;
  field?: ProtoField[];
  nestedType?: Descriptor[];
  options?: { mapEntry?: boolean } | null;
  value?: { name: string }[];
}

export interface LoadedProto {
  definition: PackageDefinition;
  file: string;
}

const cache = new Map<string, { stamp: string; proto: LoadedProto }>();

const inside = (root: string, path: string) => {
  const rel = relative(root, path);
  return rel !== '' && rel !== '..' && !rel.startsWith(`..${sep}`) && !isAbsolute(rel);
};

/** A file named by the tool, which must lie inside the skill folder (real paths: no symlink out). */
export function skillFile(skillDir: string, path: string, what: string): string {
  if (path.includes('\0') || isAbsolute(path))
    throw new Error(`${what} must be a path relative to the skill folder`);
  let root: string;
  let real: string;
  try {
    root = realpathSync(skillDir);
    real = realpathSync(resolve(skillDir, path));
  } catch {
    throw new Error(`${what} ${path} does not exist in the skill folder`);
  }
  if (!inside(root, real)) throw new Error(`${what} ${path} lies outside the skill folder`);
  return real;
}

/** Loads (once per file version) the `.proto` file at `file`; imports resolve from its folder. */
export function loadProto(file: string): LoadedProto {
  const info = statSync(file);
  const stamp = `${info.mtimeMs}:${info.size}`;
  const hit = cache.get(file);
  if (hit && hit.stamp === stamp) return hit.proto;
  loader ??= require('@grpc/proto-loader') as typeof import('@grpc/proto-loader');
  const definition = loader.loadSync(file, { ...LOADER_OPTIONS, includeDirs: [dirname(file)] });
  const proto = { definition, file };
  cache.set(file, { stamp, proto });
  return proto;
}

export function findMethod(
  proto: LoadedProto,
  service: string,
  method: string,
): { method?: MethodDefinition<object, object>; problem?: 'service' | 'method'; known: string[] } {
  const entry = proto.definition[service] as Record<string, MethodDefinition<object, object>> | undefined;
  if (!entry || 'format' in entry) {
    const known = Object.entries(proto.definition)
      .filter(([, v]) => !('format' in v))
      .map(([k]) => k);
    return { problem: 'service', known };
  }
  const found = Object.hasOwn(entry, method) ? entry[method] : undefined;
  if (!found) return { problem: 'method', known: Object.keys(entry) };
  return { method: found, known: [] };
}

/** A message type of the proto, by its full name (`weather.ForecastRequest`), with its fields. */
export interface MessageType {
  name: string;
  fields: ProtoField[];
  /** Map fields: the entry message (key, value). */
  nested: Map<string, Descriptor>;
}

export function messageType(proto: LoadedProto, fullName: string): MessageType | undefined {
  const entry = proto.definition[fullName] as { type?: Descriptor; format?: string } | undefined;
  if (!entry?.format?.includes('DescriptorProto') || entry.format.includes('Enum')) return undefined;
  const type = entry.type!;
  const nested = new Map((type.nestedType ?? []).map((n) => [n.name ?? '', n]));
  return { name: fullName, fields: type.field ?? [], nested };
}

export function enumValues(proto: LoadedProto, fullName: string): string[] | undefined {
  const entry = proto.definition[fullName] as { type?: Descriptor; format?: string } | undefined;
  if (!entry?.format?.includes('EnumDescriptorProto')) return undefined;
  return (entry.type?.value ?? []).map((v) => v.name);
}

/** Resolves a field's `typeName` the way protobuf scopes names: innermost enclosing scope first. */
export function resolveTypeName(proto: LoadedProto, scope: string, typeName: string): string | undefined {
  if (typeName.startsWith('.')) return proto.definition[typeName.slice(1)] ? typeName.slice(1) : undefined;
  const parts = scope.split('.');
  for (let k = parts.length; k >= 0; k--) {
    const candidate = [...parts.slice(0, k), typeName].join('.');
    if (proto.definition[candidate]) return candidate;
  }
  return undefined;
}

/**
 * The full name of a method's request type. proto-loader hands over the descriptor without its package, so the
 * message is found by its name and, should two packages use the same name, by its fields.
 */
export function requestTypeName(
  proto: LoadedProto,
  method: MethodDefinition<object, object>,
): string | undefined {
  const wanted = (method.requestType as unknown as { type?: Descriptor }).type;
  if (!wanted?.name) return undefined;
  const candidates = Object.entries(proto.definition).filter(
    ([key, value]) =>
      (key === wanted.name || key.endsWith(`.${wanted.name}`)) &&
      (value as { format?: string }).format === 'Protocol Buffer 3 DescriptorProto',
  );
  if (candidates.length === 1) return candidates[0]![0];
  const fields = JSON.stringify(wanted.field ?? []);
  return candidates.find(
    ([, v]) => JSON.stringify((v as { type?: Descriptor }).type?.field ?? []) === fields,
  )?.[0];
}
