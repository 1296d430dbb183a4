import { existsSync, readFileSync } from 'node:fs';
import type { MethodDefinition } from '@grpc/proto-loader';
import { EntrypointError } from './errors.js';
import { seconds } from './limits.js';
import { capText } from './output-cap.js';
import type { RunResult } from './types.js';

export interface CallSpec {
  /** `host:port` as written in the entrypoint. */
  address: string;
  host: string;
  method: MethodDefinition<object, object>;
  stream: boolean;
  request: Record<string, unknown>;
  metadata: Record<string, string>;
  /** TLS when set; `ca` replaces the system roots. */
  credentials?: { ca?: Buffer | undefined };
  timeoutMs: number;
  maxOutputBytes: number;
  signal?: AbortSignal;
  where: string;
}

/** The CA bundle of the system (`SSL_CERT_FILE` first), where there is one; else Node's own roots are used. */
const SYSTEM_BUNDLES = [
  '/etc/ssl/certs/ca-certificates.crt',
  '/etc/pki/tls/certs/ca-bundle.crt',
  '/etc/ssl/cert.pem',
];

function systemRoots(): Buffer | undefined {
  const file = [process.env.SSL_CERT_FILE, ...SYSTEM_BUNDLES].find((f) => f && existsSync(f));
  try {
    return file ? readFileSync(file) : undefined;
  } catch {
    return undefined;
  }
}

/** gRPC status codes by number, for messages. */
const STATUS = [
  'OK',
  'CANCELLED',
  'UNKNOWN',
  'INVALID_ARGUMENT',
  'DEADLINE_EXCEEDED',
  'NOT_FOUND',
  'ALREADY_EXISTS',
  'PERMISSION_DENIED',
  'RESOURCE_EXHAUSTED',
  'FAILED_PRECONDITION',
  'ABORTED',
  'OUT_OF_RANGE',
  'UNIMPLEMENTED',
  'INTERNAL',
  'UNAVAILABLE',
  'DATA_LOSS',
  'UNAUTHENTICATED',
];

/** One call through `@grpc/grpc-js` (imported on the first call): a fresh channel, closed afterwards. */
export async function grpcCall(spec: CallSpec): Promise<RunResult> {
  if (spec.signal?.aborted) throw aborted(spec, '');
  const grpc = await import('@grpc/grpc-js');
  const credentials = spec.credentials
    ? grpc.credentials.createSsl(spec.credentials.ca ?? systemRoots() ?? null)
    : grpc.credentials.createInsecure();
  const client = new grpc.Client(spec.address, credentials, {
    'grpc.enable_retries': 0,
    'grpc.max_receive_message_length': Math.max(4 * 1024 * 1024, spec.maxOutputBytes * 4),
  });
  const metadata = new grpc.Metadata();
  for (const [key, value] of Object.entries(spec.metadata)) metadata.set(key, value);
  const deadline = Date.now() + spec.timeoutMs;
  const { path, requestSerialize, responseDeserialize } = spec.method;
  try {
    if (!spec.stream) {
      const response = await new Promise<unknown>((resolve, reject) => {
        const call = client.makeUnaryRequest(
          path,
          requestSerialize,
          responseDeserialize,
          spec.request,
          metadata,
          { deadline },
          (error, value) => (error ? reject(error) : resolve(value)),
        );
        const cancel = () => call.cancel();
        spec.signal?.addEventListener('abort', cancel, { once: true });
        call.on('status', () => spec.signal?.removeEventListener('abort', cancel));
      }).catch((error: unknown) => {
        throw statusError(spec, error, '');
      });
      const capped = capText(JSON.stringify(response, null, 2), spec.maxOutputBytes);
      return { output: capped.text, truncated: capped.truncated };
    }
    return await collectStream(client, spec, metadata, deadline);
  } finally {
    client.close();
  }
}

/** A server stream, one JSON document a line, until it ends or the next message would pass the output cap. */
function collectStream(
  client: import('@grpc/grpc-js').Client,
  spec: CallSpec,
  metadata: import('@grpc/grpc-js').Metadata,
  deadline: number,
): Promise<RunResult> {
  const { path, requestSerialize, responseDeserialize } = spec.method;
  return new Promise((resolve, reject) => {
    const lines: string[] = [];
    let bytes = 0;
    let cut = false;
    const call = client.makeServerStreamRequest(
      path,
      requestSerialize,
      responseDeserialize,
      spec.request,
      metadata,
      { deadline },
    );
    const cancel = () => call.cancel();
    spec.signal?.addEventListener('abort', cancel, { once: true });
    const done = (result: RunResult | Error) => {
      spec.signal?.removeEventListener('abort', cancel);
      if (result instanceof Error) reject(result);
      else resolve(result);
    };
    call.on('data', (message: unknown) => {
      if (cut) return;
      const line = `${JSON.stringify(message)}\n`;
      const size = Buffer.byteLength(line);
      if (bytes + size > spec.maxOutputBytes) {
        cut = true;
        lines.push(`[… stream cut at the output cap after ${lines.length} messages …]\n`);
        call.cancel();
        return;
      }
      bytes += size;
      lines.push(line);
    });
    call.on('error', (error: unknown) => {
      if (cut) return done({ output: lines.join(''), truncated: true });
      done(statusError(spec, error, lines.join('')));
    });
    call.on('end', () => {
      if (!cut) done({ output: lines.join(''), truncated: false });
    });
  });
}

/** A gRPC status as this package's errors: the codes callers already branch on where they mean the same. */
function statusError(spec: CallSpec, error: unknown, output: string): EntrypointError {
  const code = (error as { code?: number }).code;
  const details =
    (error as { details?: string }).details ?? (error instanceof Error ? error.message : String(error));
  const name = code === undefined ? 'UNKNOWN' : (STATUS[code] ?? String(code));
  const extra = output ? { output } : {};
  if (code === 1 && spec.signal?.aborted) return aborted(spec, output);
  if (code === 4) {
    return new EntrypointError(
      'timeout',
      `${spec.where}: no answer within ${seconds(spec.timeoutMs)} (DEADLINE_EXCEEDED)`,
      {
        cause: error,
        ...extra,
      },
    );
  }
  if (code === 14) {
    return new EntrypointError(
      'network',
      `${spec.where}: ${spec.address} is unavailable (UNAVAILABLE): ${details}`,
      {
        cause: error,
        ...extra,
      },
    );
  }
  return new EntrypointError(
    'grpc-status',
    `${spec.where}: the server answered ${name} (${code ?? '?'}): ${details}`,
    {
      cause: error,
      ...(code === undefined ? {} : { status: code }),
      ...extra,
    },
  );
}

function aborted(spec: CallSpec, output: string): EntrypointError {
  const reason = spec.signal?.reason instanceof Error ? `: ${spec.signal.reason.message}` : '';
  return new EntrypointError('aborted', `${spec.where} was cancelled${reason}`, {
    cause: spec.signal?.reason,
    ...(output ? { output } : {}),
  });
}
