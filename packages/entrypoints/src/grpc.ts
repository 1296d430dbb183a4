import { readFileSync } from 'node:fs';
import { withDefaults } from './args.js';
import { EntrypointError } from './errors.js';
import { type CallSpec, grpcCall } from './grpc-call.js';
import {
  findMethod,
  type LoadedProto,
  loadProto,
  messageType,
  requestTypeName,
  skillFile,
} from './grpc-proto.js';
import { schemaProblems, valueProblem } from './grpc-schema.js';
import { limitsOf } from './limits.js';
import type { EntrypointProblem, TargetAnalysis } from './target.js';
import type { Entrypoint, RunOptions, RunResult, SchemeContext, ToolSettings } from './types.js';

/** `HOST:PORT/package.Service/Method`: all literal. An argument can never change where a call goes. */
const TARGET =
  /^(\[[0-9A-Fa-f:.]+\]|[A-Za-z0-9](?:[A-Za-z0-9.-]*[A-Za-z0-9])?):(\d{1,5})\/([A-Za-z_]\w*(?:\.[A-Za-z_]\w*)*)\/([A-Za-z_]\w*)$/;
/** What gRPC allows in a metadata key, minus reserved (`grpc-`) and binary (`-bin`) keys. */
const METADATA_KEY = /^[0-9a-z_.-]+$/;
const METADATA_VALUE = /^[\x20-\x7e]*$/;

/**
 * `grpc:HOST:PORT/package.Service/Method` with the tool's `proto:` file. The check loads the `.proto` file (nothing
 * connects) and compares the tool's schema with the request message; a call sends the arguments as that message
 * and returns the response as JSON (a server stream as one JSON document a line, up to the output cap).
 */
export function analyseGrpc(target: string, context: SchemeContext): TargetAnalysis {
  const where = context.entrypoint;
  const none = (problems: EntrypointProblem[]): TargetAnalysis => ({ problems, placeholders: [] });
  const brace = target.search(/[{}]/);
  if (brace >= 0) {
    return none([
      {
        code: 'bad-entrypoint',
        message: `${where}: a grpc: target takes no {placeholders}: the arguments become the request message, and host, port and method stay as written`,
        offset: brace,
      },
    ]);
  }
  const match = TARGET.exec(target);
  const port = match ? Number(match[2]) : 0;
  if (!match || port < 1 || port > 65535) {
    return none([
      {
        code: 'bad-entrypoint',
        message: `${where}: expected grpc:HOST:PORT/package.Service/Method`,
        offset: 0,
      },
    ]);
  }
  const [, host, , service, methodName] = match as unknown as [string, string, string, string, string];
  const serviceOffset = target.indexOf('/') + 1;
  const methodOffset = target.lastIndexOf('/') + 1;
  const settings: ToolSettings = context.settings ?? {};
  const problems: EntrypointProblem[] = [...settingProblems(settings, context, where)];
  if (!settings.proto) {
    problems.push({
      code: 'bad-proto',
      message: `${where}: a grpc: tool needs \`proto:\`, the .proto file in its skill folder that defines ${service}`,
    });
    return none(problems);
  }
  let proto: LoadedProto;
  try {
    proto = loadProto(skillFile(context.skillDir, settings.proto, 'proto:'));
  } catch (error) {
    const reason = error instanceof Error ? error.message : String(error);
    problems.push({ code: 'bad-proto', message: `${where}: ${reason.replace(/^Error: /, '')}` });
    return none(problems);
  }
  const found = findMethod(proto, service, methodName);
  if (!found.method) {
    const [what, offset] =
      found.problem === 'service'
        ? ([`service ${service}`, serviceOffset] as const)
        : ([`method ${service}/${methodName}`, methodOffset] as const);
    problems.push({
      code: 'bad-proto',
      message: `${where}: ${settings.proto} defines no ${what} (it defines: ${found.known.join(', ') || 'nothing'})`,
      offset,
    });
    return none(problems);
  }
  const method = found.method;
  if (method.requestStream) {
    problems.push({
      code: 'bad-entrypoint',
      message: `${where}: ${service}/${methodName} streams its requests; grpc: tools call unary and server-streaming methods only`,
      offset: methodOffset,
    });
  }
  const requestName = requestTypeName(proto, method);
  const request = requestName ? messageType(proto, requestName) : undefined;
  if (request && context.schema) {
    for (const message of schemaProblems(proto, request, context.schema)) {
      problems.push({
        code: 'schema-mismatch',
        message: `${where}: the tool's schema does not match ${request.name}: ${message}`,
        offset: methodOffset,
      });
    }
  }
  if (problems.length > 0) return none(problems);
  const spec = {
    address: `${host}:${port}`,
    host: host.replace(/^\[|\]$/g, ''),
    method,
    stream: method.responseStream,
  };
  return {
    problems,
    placeholders: [],
    build: (): Entrypoint => ({
      scheme: 'grpc',
      raw: false,
      placeholders: [],
      confinement: 'none',
      run: (args, options = {}) => runGrpc(spec, proto, request, args, context, options),
    }),
  };
}

function settingProblems(settings: ToolSettings, context: SchemeContext, where: string): EntrypointProblem[] {
  const problems: EntrypointProblem[] = [];
  if (settings.ca !== undefined) {
    if (settings.tls !== true)
      problems.push({ code: 'bad-entrypoint', message: `${where}: \`ca:\` is set but \`tls:\` is not true` });
    try {
      skillFile(context.skillDir, settings.ca, 'ca:');
    } catch (error) {
      problems.push({ code: 'bad-entrypoint', message: `${where}: ${(error as Error).message}` });
    }
  }
  const problem = metadataProblem(settings.metadata);
  if (problem) problems.push({ code: 'bad-entrypoint', message: `${where}: metadata: ${problem}` });
  return problems;
}

function metadataProblem(metadata: Record<string, string> | undefined): string | undefined {
  for (const [key, value] of Object.entries(metadata ?? {})) {
    if (!METADATA_KEY.test(key) || key.startsWith('grpc-') || key.endsWith('-bin')) {
      return `${JSON.stringify(key)} is not a usable key (lower-case letters, digits, - _ .; not grpc-…, not …-bin)`;
    }
    if (typeof value !== 'string' || !METADATA_VALUE.test(value))
      return `the value of ${key} must be printable ASCII text`;
  }
  return undefined;
}

async function runGrpc(
  spec: Omit<
    CallSpec,
    'request' | 'metadata' | 'credentials' | 'timeoutMs' | 'maxOutputBytes' | 'signal' | 'where'
  >,
  proto: LoadedProto,
  request: ReturnType<typeof messageType>,
  args: Record<string, unknown>,
  context: SchemeContext,
  options: RunOptions,
): Promise<RunResult> {
  const limits = limitsOf(options);
  const settings = context.settings ?? {};
  const full = withDefaults(args, context.schema);
  const properties = context.schema?.properties;
  const message: Record<string, unknown> = {};
  for (const [name, value] of Object.entries(full)) {
    if (value === undefined || value === null) continue;
    if (properties && !Object.hasOwn(properties, name)) {
      throw new EntrypointError('bad-argument', `argument "${name}" is not a property of the tool's schema`);
    }
    message[name] = value;
  }
  const problem = request && valueProblem(proto, request, message);
  if (problem) throw new EntrypointError('bad-argument', problem);
  const extra = metadataProblem(options.metadata);
  if (extra) throw new EntrypointError('bad-entrypoint', `RunOptions.metadata: ${extra}`);
  return grpcCall({
    ...spec,
    request: message,
    metadata: { ...settings.metadata, ...options.metadata },
    credentials: settings.tls
      ? { ca: settings.ca ? readFileSync(skillFile(context.skillDir, settings.ca, 'ca:')) : undefined }
      : undefined,
    timeoutMs: limits.timeoutMs,
    maxOutputBytes: limits.maxOutputBytes,
    ...(options.signal ? { signal: options.signal } : {}),
    where: context.entrypoint,
  });
}
