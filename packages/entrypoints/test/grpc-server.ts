import { execFileSync } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import * as grpc from '@grpc/grpc-js';
import * as loader from '@grpc/proto-loader';

export const PROTO_DIR = new URL('./fixtures/grpc/', import.meta.url).pathname;

export interface TestServer {
  port: number;
  /** How many Stream calls the server saw cancelled by the client. */
  cancelledStreams(): number;
  close(): Promise<void>;
}

type Request = Record<string, unknown> & { city?: string; days?: number; unit?: string };

/** A real gRPC server on 127.0.0.1 implementing weather.v1.Weather (see fixtures/grpc/weather.proto). */
export async function startServer(
  credentials = grpc.ServerCredentials.createInsecure(),
): Promise<TestServer> {
  const definition = loader.loadSync(join(PROTO_DIR, 'weather.proto'), {
    keepCase: true,
    longs: String,
    enums: String,
    bytes: String,
    defaults: true,
    includeDirs: [PROTO_DIR],
  });
  const service = definition['weather.v1.Weather'] as unknown as grpc.ServiceDefinition;
  const server = new grpc.Server();
  let cancelled = 0;
  const seen = (metadata: grpc.Metadata) =>
    Object.fromEntries(
      Object.entries(metadata.getMap())
        .filter(([k]) => k.startsWith('x-'))
        .map(([k, v]) => [k, String(v)]),
    );
  server.addService(service, {
    Get(call: grpc.ServerUnaryCall<Request, unknown>, callback: grpc.sendUnaryData<unknown>) {
      const r = call.request;
      callback(null, {
        city: r.city,
        days: Array.from({ length: r.days ?? 0 }, (_, k) => ({ n: k + 1, high: 20.5 + k, unit: r.unit })),
        seen_metadata: seen(call.metadata),
        big: r.big,
        at: r.at,
        tags: r.tags,
        blob: r.blob,
      });
    },
    Stream(call: grpc.ServerWritableStream<Request, unknown>) {
      const total = call.request.days ?? 0;
      let n = 0;
      call.on('cancelled', () => {
        cancelled++;
      });
      const next = () => {
        if (call.cancelled) return;
        if (n >= total) return call.end();
        n++;
        call.write({ n, high: n * 1.5, unit: call.request.unit });
        setImmediate(next);
      };
      next();
    },
    Slow(_call: grpc.ServerUnaryCall<Request, unknown>, _callback: grpc.sendUnaryData<unknown>) {
      // never answers: the client's deadline or cancellation ends the call
    },
    Fail(call: grpc.ServerUnaryCall<Request, unknown>, callback: grpc.sendUnaryData<unknown>) {
      callback({ code: grpc.status.NOT_FOUND, details: `no forecast for ${call.request.city}` });
    },
    Upload(_call: unknown, callback: grpc.sendUnaryData<unknown>) {
      callback(null, {});
    },
  });
  const port = await new Promise<number>((resolve, reject) =>
    server.bindAsync('127.0.0.1:0', credentials, (error, bound) => (error ? reject(error) : resolve(bound))),
  );
  return {
    port,
    cancelledStreams: () => cancelled,
    close: () => new Promise<void>((resolve) => server.tryShutdown(() => resolve())),
  };
}

/** A CA and a server certificate for localhost / 127.0.0.1, made with openssl at test time. */
export function makeCertificates(dir: string): { ca: Buffer; key: Buffer; cert: Buffer } {
  const run = (...args: string[]) => {
    try {
      execFileSync('openssl', args, { cwd: dir, stdio: 'pipe' });
    } catch (error) {
      const code = (error as NodeJS.ErrnoException).code;
      throw new Error(
        code === 'ENOENT'
          ? 'the TLS test makes its certificates with openssl, which is not installed here (run `sh scripts/system-packages.sh`, or apt-get install -y openssl)'
          : `openssl ${args[0]} failed: ${String((error as { stderr?: unknown }).stderr ?? error)}`,
      );
    }
  };
  const ec = ['-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:prime256v1', '-nodes'];
  run(
    'req',
    '-x509',
    ...ec,
    '-keyout',
    'ca.key',
    '-out',
    'ca.pem',
    '-days',
    '2',
    '-subj',
    '/CN=birdie test CA',
    '-addext',
    'basicConstraints=critical,CA:TRUE',
    '-addext',
    'keyUsage=critical,keyCertSign,cRLSign',
  );
  run('req', ...ec, '-keyout', 'server.key', '-out', 'server.csr', '-subj', '/CN=localhost');
  writeFileSync(
    join(dir, 'server.ext'),
    'subjectAltName=DNS:localhost,IP:127.0.0.1\nextendedKeyUsage=serverAuth\n',
  );
  run(
    'x509',
    '-req',
    '-in',
    'server.csr',
    '-CA',
    'ca.pem',
    '-CAkey',
    'ca.key',
    '-CAcreateserial',
    '-out',
    'server.pem',
    '-days',
    '2',
    '-extfile',
    'server.ext',
  );
  const read = (name: string) => readFileSync(join(dir, name));
  return { ca: read('ca.pem'), key: read('server.key'), cert: read('server.pem') };
}
