import {
  enumValues,
  type LoadedProto,
  type MessageType,
  messageType,
  type ProtoField,
  resolveTypeName,
} from './grpc-proto.js';

/** What JSON a proto field takes (as proto-loader reads it: 64-bit integers as numbers or strings, bytes base64). */
type Kind =
  | { kind: 'scalar'; proto: string; json: readonly string[]; names?: string[] }
  | { kind: 'message'; name: string; type?: MessageType }
  | { kind: 'array'; item: Kind }
  | { kind: 'map'; value: Kind };

const SCALARS: Record<string, readonly string[]> = {
  TYPE_STRING: ['string'],
  TYPE_BYTES: ['string'],
  TYPE_BOOL: ['boolean'],
  TYPE_DOUBLE: ['number', 'integer'],
  TYPE_FLOAT: ['number', 'integer'],
  TYPE_INT32: ['integer'],
  TYPE_UINT32: ['integer'],
  TYPE_SINT32: ['integer'],
  TYPE_FIXED32: ['integer'],
  TYPE_SFIXED32: ['integer'],
  TYPE_INT64: ['integer', 'string'],
  TYPE_UINT64: ['integer', 'string'],
  TYPE_SINT64: ['integer', 'string'],
  TYPE_FIXED64: ['integer', 'string'],
  TYPE_SFIXED64: ['integer', 'string'],
};

const protoName = (type: string) => type.replace(/^TYPE_/, '').toLowerCase();

function single(proto: LoadedProto, owner: MessageType, field: ProtoField): Kind {
  if (field.type === 'TYPE_MESSAGE' || field.type === 'TYPE_GROUP') {
    const name = resolveTypeName(proto, owner.name, field.typeName) ?? field.typeName;
    const type = messageType(proto, name);
    return { kind: 'message', name, ...(type ? { type } : {}) };
  }
  if (field.type === 'TYPE_ENUM') {
    const name = resolveTypeName(proto, owner.name, field.typeName) ?? field.typeName;
    const names = enumValues(proto, name);
    return {
      kind: 'scalar',
      proto: `enum ${name}`,
      json: ['string', 'integer'],
      ...(names ? { names } : {}),
    };
  }
  return { kind: 'scalar', proto: protoName(field.type), json: SCALARS[field.type] ?? [] };
}

function kindOf(proto: LoadedProto, owner: MessageType, field: ProtoField): Kind {
  if (field.label === 'LABEL_REPEATED') {
    const entry = field.type === 'TYPE_MESSAGE' ? owner.nested.get(field.typeName) : undefined;
    if (entry?.options?.mapEntry) {
      const value = entry.field?.find((f) => f.name === 'value');
      return {
        kind: 'map',
        value: value ? single(proto, owner, value) : { kind: 'scalar', proto: '?', json: [] },
      };
    }
    return { kind: 'array', item: single(proto, owner, field) };
  }
  return single(proto, owner, field);
}

const describeKind = (kind: Kind): string =>
  kind.kind === 'scalar'
    ? kind.proto
    : kind.kind === 'message'
      ? `message ${kind.name}`
      : kind.kind === 'array'
        ? `repeated ${describeKind(kind.item)}`
        : `map to ${describeKind(kind.value)}`;

const jsonOf = (kind: Kind): readonly string[] =>
  kind.kind === 'scalar' ? kind.json : kind.kind === 'array' ? ['array'] : ['object'];

const schemaTypes = (node: Record<string, unknown>): string[] => {
  const type = node.type;
  const list = Array.isArray(type) ? type : typeof type === 'string' ? [type] : [];
  return list.filter((t): t is string => typeof t === 'string' && t !== 'null');
};

/**
 * Where the tool's JSON Schema and the proto request message disagree: a property that is not a field, a type the
 * field cannot hold (a string for an int32), enum values the proto does not define, nested objects likewise.
 * Fields the schema leaves out are fine (they keep their default).
 */
export function schemaProblems(
  proto: LoadedProto,
  message: MessageType,
  schema: Record<string, unknown>,
): string[] {
  return objectProblems(proto, message, schema, '');
}

function objectProblems(
  proto: LoadedProto,
  message: MessageType,
  schema: Record<string, unknown>,
  path: string,
): string[] {
  const properties = schema.properties;
  if (!properties || typeof properties !== 'object') return [];
  const problems: string[] = [];
  for (const [name, node] of Object.entries(properties as Record<string, unknown>)) {
    const where = `${path}${name}`;
    const field = message.fields.find((f) => f.name === name);
    if (!field) {
      problems.push(
        `property "${where}" is not a field of ${message.name} (its fields: ${message.fields.map((f) => f.name).join(', ') || 'none'})`,
      );
      continue;
    }
    if (node && typeof node === 'object') {
      problems.push(
        ...nodeProblems(
          proto,
          kindOf(proto, message, field),
          node as Record<string, unknown>,
          where,
          `${message.name}.${name}`,
        ),
      );
    }
  }
  return problems;
}

function nodeProblems(
  proto: LoadedProto,
  kind: Kind,
  node: Record<string, unknown>,
  where: string,
  field: string,
): string[] {
  const types = schemaTypes(node);
  const allowed = jsonOf(kind);
  const wrong = types.filter(
    (t) => !allowed.includes(t) && !(t === 'number' && kind.kind === 'scalar' && allowed.includes('number')),
  );
  if (wrong.length > 0) {
    return [
      `property "${where}" has type ${wrong.join(', ')} in the schema, but ${field} is ${describeKind(kind)} (use type: ${allowed.join(' or ') || 'nothing JSON can hold'})`,
    ];
  }
  if (kind.kind === 'scalar' && kind.names && Array.isArray(node.enum)) {
    const unknown = node.enum.filter((v) => typeof v === 'string' && !kind.names!.includes(v));
    if (unknown.length > 0) {
      return [
        `property "${where}" allows ${unknown.map((v) => JSON.stringify(v)).join(', ')}, which ${kind.proto} does not define (${kind.names.join(', ')})`,
      ];
    }
  }
  if (kind.kind === 'array' && node.items && typeof node.items === 'object') {
    return nodeProblems(proto, kind.item, node.items as Record<string, unknown>, `${where}[]`, field);
  }
  if (kind.kind === 'map' && node.additionalProperties && typeof node.additionalProperties === 'object') {
    return nodeProblems(
      proto,
      kind.value,
      node.additionalProperties as Record<string, unknown>,
      `${where}{}`,
      field,
    );
  }
  if (kind.kind === 'message' && kind.type) return objectProblems(proto, kind.type, node, `${where}.`);
  return [];
}

/**
 * Whether a request (the model's arguments, defaults applied) fits the message: protobufjs would otherwise coerce
 * quietly (`"abc"` to 0 for an int32) or drop unknown fields. Returns the first problem.
 */
export function valueProblem(
  proto: LoadedProto,
  message: MessageType,
  value: Record<string, unknown>,
  path = '',
): string | undefined {
  for (const [name, item] of Object.entries(value)) {
    if (item === null || item === undefined) continue;
    const field = message.fields.find((f) => f.name === name);
    if (!field) return `argument "${path}${name}" is not a field of ${message.name}`;
    const problem = fits(proto, kindOf(proto, message, field), item, `${path}${name}`);
    if (problem) return problem;
  }
  return undefined;
}

function fits(proto: LoadedProto, kind: Kind, value: unknown, where: string): string | undefined {
  const bad = () =>
    `argument "${where}" is ${JSON.stringify(value)?.slice(0, 60)}, which does not fit ${describeKind(kind)}`;
  switch (kind.kind) {
    case 'array':
      if (!Array.isArray(value)) return bad();
      for (const [k, item] of value.entries()) {
        const problem = fits(proto, kind.item, item, `${where}[${k}]`);
        if (problem) return problem;
      }
      return undefined;
    case 'map':
      if (!value || typeof value !== 'object' || Array.isArray(value)) return bad();
      for (const [k, item] of Object.entries(value)) {
        const problem = fits(proto, kind.value, item, `${where}.${k}`);
        if (problem) return problem;
      }
      return undefined;
    case 'message':
      if (!value || typeof value !== 'object' || Array.isArray(value)) return bad();
      return kind.type
        ? valueProblem(proto, kind.type, value as Record<string, unknown>, `${where}.`)
        : undefined;
    case 'scalar':
      return scalarFits(kind, value) ? undefined : bad();
  }
}

function scalarFits(kind: Extract<Kind, { kind: 'scalar' }>, value: unknown): boolean {
  if (kind.names) return (typeof value === 'string' && kind.names.includes(value)) || Number.isInteger(value);
  if (kind.json.includes('string') && typeof value === 'string') {
    if (kind.proto === 'bytes') return /^[A-Za-z0-9+/_-]*={0,2}$/.test(value);
    if (kind.proto === 'string') return true;
    return /^-?\d+$/.test(value); // a 64-bit integer written as text
  }
  if (kind.json.includes('boolean')) return typeof value === 'boolean';
  if (kind.json.includes('number')) return typeof value === 'number' && Number.isFinite(value);
  if (kind.json.includes('integer')) return Number.isInteger(value);
  return false;
}
