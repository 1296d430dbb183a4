import { copyFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import * as grpc from '@grpc/grpc-js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  checkEntrypoint,
  EntrypointError,
  type JsonSchemaObjectLike,
  type RunOptions,
  resolveEntrypoint,
  type ToolSettings,
} from '../src/index.js';
import { makeCertificates, PROTO_DIR, startServer, type TestServer } from './grpc-server.js';
import { tempDir } from './helpers.js';
import { startParent } from './parent-process.js';

const SCHEMA: JsonSchemaObjectLike = {
  type: 'object',
  properties: {
    city: { type: 'string' },
    days: { type: 'integer', default: 2 },
    unit: { type: 'string', enum: ['CELSIUS', 'FAHRENHEIT'] },
    fields: { type: 'array', items: { type: 'string' } },
    tags: { type: 'object', additionalProperties: { type: 'string' } },
    at: { type: 'object', properties: { lat: { type: 'number' }, lon: { type: 'number' } } },
    big: { type: 'string' },
    blob: { type: 'string' },
  },
  required: ['city'],
};

let skillDir: string;
let server: TestServer;
let tlsServer: TestServer;
const SETTINGS: ToolSettings = { proto: 'weather.proto', metadata: { 'x-api-version': '2' } };

beforeAll(async () => {
  skillDir = await tempDir('birdie-grpc-');
  for (const file of ['weather.proto', 'units.proto'])
    await copyFile(join(PROTO_DIR, file), join(skillDir, file));
  const certs = makeCertificates(await tempDir('birdie-grpc-certs-'));
  await writeFile(join(skillDir, 'ca.pem'), certs.ca);
  server = await startServer();
  tlsServer = await startServer(
    grpc.ServerCredentials.createSsl(null, [{ private_key: certs.key, cert_chain: certs.cert }]),
  );
});

afterAll(async () => {
  await Promise.all([server?.close(), tlsServer?.close()]);
});

async function call(
  method: string,
  args: Record<string, unknown>,
  options: RunOptions = {},
  settings: ToolSettings = SETTINGS,
  port = server.port,
  host = '127.0.0.1',
) {
  const entrypoint = resolveEntrypoint(`grpc:${host}:${port}/weather.v1.Weather/${method}`, {
    skillDir,
    schema: SCHEMA,
    settings,
  });
  try {
    return { ok: true as const, ...(await entrypoint.run(args, options)) };
  } catch (error) {
    if (!(error instanceof EntrypointError)) throw error;
    return {
      ok: false as const,
      code: error.code,
      message: error.message,
      status: error.status,
      output: error.output,
    };
  }
}

describe('grpc: calls against a local server', { timeout: 60_000 }, () => {
  it('unary: the arguments become the request, the response comes back as JSON, metadata from the tool', async () => {
    const result = await call(
      'Get',
      {
        city: 'Paris',
        unit: 'CELSIUS',
        at: { lat: 48.85, lon: 2.35 },
        tags: { source: 'test' },
        big: '9007199254740993',
        blob: Buffer.from('hi').toString('base64'),
      },
      { metadata: { 'x-request-id': 'r-1' } },
    );
    expect(result.ok).toBe(true);
    expect(JSON.parse((result as { output: string }).output)).toEqual({
      city: 'Paris',
      days: [
        { n: 1, high: 20.5, unit: 'CELSIUS' },
        { n: 2, high: 21.5, unit: 'CELSIUS' },
      ],
      seen_metadata: { 'x-api-version': '2', 'x-request-id': 'r-1' },
      big: '9007199254740993',
      at: { lat: 48.85, lon: 2.35 },
      tags: { source: 'test' },
      blob: 'aGk=',
    });
  });

  it('an argument can never change host, port or method: it is only ever a field of the message', async () => {
    const result = await call('Get', { city: 'evil.example:443/other.Service/Method', days: 0 });
    expect(JSON.parse((result as { output: string }).output)).toMatchObject({
      city: 'evil.example:443/other.Service/Method',
    });
    // an argument that is no property of the schema (say, metadata) is refused, not sent anywhere
    expect(await call('Get', { city: 'x', 'x-api-version': '9' })).toMatchObject({
      ok: false,
      code: 'bad-argument',
    });
    // a value the field cannot hold is refused rather than coerced (protobufjs would send 0)
    expect(await call('Get', { city: 'x', days: 'many' })).toMatchObject({
      ok: false,
      code: 'bad-argument',
      message: 'argument "days" is "many", which does not fit int32',
    });
    expect(await call('Get', { city: 'x', unit: 'KELVIN' })).toMatchObject({ code: 'bad-argument' });
  });

  it('server streaming: every message as one JSON line', async () => {
    const result = await call('Stream', { city: 'Oslo', days: 3, unit: 'FAHRENHEIT' });
    expect(result).toEqual({
      ok: true,
      output:
        '{"n":1,"high":1.5,"unit":"FAHRENHEIT"}\n{"n":2,"high":3,"unit":"FAHRENHEIT"}\n{"n":3,"high":4.5,"unit":"FAHRENHEIT"}\n',
      truncated: false,
    });
  });

  it('server streaming is collected up to the output cap, then the stream is cancelled', async () => {
    const before = server.cancelledStreams();
    const result = await call('Stream', { city: 'Oslo', days: 1_000_000 }, { maxOutputBytes: 2_000 });
    expect(result).toMatchObject({ ok: true, truncated: true });
    const lines = (result as { output: string }).output.trim().split('\n');
    expect(lines.at(-1)).toMatch(/^\[… stream cut at the output cap after \d+ messages …\]$/);
    expect((result as { output: string }).output.length).toBeLessThanOrEqual(2_100);
    for (const line of lines.slice(0, -1)) expect(JSON.parse(line)).toHaveProperty('n');
    const deadline = Date.now() + 5_000;
    while (server.cancelledStreams() === before && Date.now() < deadline)
      await new Promise((r) => setTimeout(r, 20));
    expect(server.cancelledStreams()).toBe(before + 1);
  });

  it('deadline exceeded: the tool timeout is the deadline (timeout)', async () => {
    expect(await call('Slow', { city: 'x' }, { timeoutMs: 300 })).toMatchObject({
      ok: false,
      code: 'timeout',
      message: expect.stringContaining('no answer within 0.3 s (DEADLINE_EXCEEDED)'),
    });
  });

  it('cancellation from the turn (aborted)', async () => {
    expect(await call('Slow', { city: 'x' }, { signal: AbortSignal.timeout(200) })).toMatchObject({
      ok: false,
      code: 'aborted',
    });
  });

  it('an error status is grpc-status with its number and name; an unreachable server is network', async () => {
    expect(await call('Fail', { city: 'Atlantis' })).toMatchObject({
      ok: false,
      code: 'grpc-status',
      status: 5,
      message: expect.stringContaining('the server answered NOT_FOUND (5): no forecast for Atlantis'),
    });
    const closed = await startServer();
    const port = closed.port;
    await closed.close();
    expect(await call('Get', { city: 'x' }, {}, SETTINGS, port)).toMatchObject({
      ok: false,
      code: 'network',
    });
  });

  it("TLS with a generated certificate: trusted through the tool's ca file; refused without it", async () => {
    const tls: ToolSettings = { ...SETTINGS, tls: true, ca: 'ca.pem' };
    const result = await call('Get', { city: 'Bergen', days: 1 }, {}, tls, tlsServer.port, 'localhost');
    expect(result.ok).toBe(true);
    expect(JSON.parse((result as { output: string }).output)).toMatchObject({ city: 'Bergen' });
    // the system roots do not know the test CA
    const untrusted = await call(
      'Get',
      { city: 'x' },
      {},
      { ...SETTINGS, tls: true },
      tlsServer.port,
      'localhost',
    );
    expect(untrusted).toMatchObject({ ok: false, code: 'network' });
    // plain text against a TLS server fails too
    expect(
      await call('Get', { city: 'x' }, { timeoutMs: 3_000 }, SETTINGS, tlsServer.port, 'localhost'),
    ).toMatchObject({
      ok: false,
    });
  });
});

describe('grpc: checkEntrypoint compares the schema with the proto message', () => {
  const check = (
    entrypoint: string,
    schema: JsonSchemaObjectLike = SCHEMA,
    settings: ToolSettings = SETTINGS,
  ) => checkEntrypoint(entrypoint, { skillDir, schema, settings });
  const at = (problems: { code: string; offset?: number }[]) =>
    problems.map((p) => `${p.code}@${p.offset ?? '-'}`);
  const GET = 'grpc:127.0.0.1:50051/weather.v1.Weather/Get';

  it('a matching tool has no problem (nothing connects)', () => {
    expect(check(GET)).toEqual([]);
    expect(check('grpc:localhost:50051/weather.v1.Weather/Stream')).toEqual([]);
  });

  it('each mismatched field is a problem at the method name', () => {
    const schema = {
      type: 'object',
      properties: {
        city: { type: 'integer' },
        town: { type: 'string' },
        unit: { type: 'string', enum: ['CELSIUS', 'KELVIN'] },
        fields: { type: 'string' },
        at: { type: 'object', properties: { lat: { type: 'string' }, alt: { type: 'number' } } },
        tags: { type: 'object', additionalProperties: { type: 'integer' } },
        days: { type: 'number' },
      },
    };
    const problems = check(GET, schema);
    const offset = GET.lastIndexOf('/') + 1;
    expect(problems.every((p) => p.code === 'schema-mismatch' && p.offset === offset)).toBe(true);
    expect(
      problems.map((p) => p.message.replace(/^.*does not match weather\.v1\.ForecastRequest: /, '')),
    ).toEqual([
      'property "city" has type integer in the schema, but weather.v1.ForecastRequest.city is string (use type: string)',
      'property "town" is not a field of weather.v1.ForecastRequest (its fields: city, days, unit, fields, tags, at, big, hourly, blob)',
      'property "unit" allows "KELVIN", which enum weather.v1.Unit does not define (UNIT_UNSPECIFIED, CELSIUS, FAHRENHEIT)',
      'property "fields" has type string in the schema, but weather.v1.ForecastRequest.fields is repeated string (use type: array)',
      'property "at.lat" has type string in the schema, but weather.v1.Point.lat is double (use type: number or integer)',
      'property "at.alt" is not a field of weather.v1.Point (its fields: lat, lon)',
      'property "tags{}" has type integer in the schema, but weather.v1.ForecastRequest.tags is string (use type: string)',
      'property "days" has type number in the schema, but weather.v1.ForecastRequest.days is int32 (use type: integer)',
    ]);
  });

  it('the target is literal, the proto file must be there and define the method; client streaming is refused', () => {
    expect(at(check('grpc:127.0.0.1:{port}/weather.v1.Weather/Get'))).toEqual(['bad-entrypoint@15']);
    expect(at(check('grpc:127.0.0.1/weather.v1.Weather/Get'))).toEqual(['bad-entrypoint@5']);
    expect(at(check('grpc:127.0.0.1:70000/weather.v1.Weather/Get'))).toEqual(['bad-entrypoint@5']);
    expect(at(check(GET, SCHEMA, {}))).toEqual(['bad-proto@-']);
    expect(check(GET, SCHEMA, { proto: 'missing.proto' })[0]?.message).toContain(
      'proto: missing.proto does not exist',
    );
    expect(check(GET, SCHEMA, { proto: '../weather.proto' })[0]?.code).toBe('bad-proto');
    const service = 'grpc:127.0.0.1:1/'.length;
    const method = 'grpc:127.0.0.1:1/weather.v1.Weather/'.length;
    expect(at(check('grpc:127.0.0.1:1/weather.v1.Climate/Get'))).toEqual([`bad-proto@${service}`]);
    expect(at(check('grpc:127.0.0.1:1/weather.v1.Weather/Put'))).toEqual([`bad-proto@${method}`]);
    expect(at(check('grpc:127.0.0.1:1/weather.v1.Weather/Upload', { type: 'object' }))).toEqual([
      `bad-entrypoint@${method}`,
    ]);
  });

  it('tls, ca and metadata are checked too', () => {
    expect(at(check(GET, SCHEMA, { ...SETTINGS, ca: 'ca.pem' }))).toEqual(['bad-entrypoint@-']);
    expect(at(check(GET, SCHEMA, { ...SETTINGS, tls: true, ca: 'nope.pem' }))).toEqual(['bad-entrypoint@-']);
    expect(at(check(GET, SCHEMA, { ...SETTINGS, metadata: { 'grpc-timeout': '1' } }))).toEqual([
      'bad-entrypoint@-',
    ]);
    expect(at(check(GET, SCHEMA, { ...SETTINGS, metadata: { Upper: '1' } }))).toEqual(['bad-entrypoint@-']);
    expect(at(check(GET, SCHEMA, { ...SETTINGS, metadata: { 'x-a': 'line\nbreak' } }))).toEqual([
      'bad-entrypoint@-',
    ]);
  });

  it("a broken proto file is bad-proto with the parser's reason", async () => {
    await writeFile(join(skillDir, 'broken.proto'), 'syntax = "proto3";\nmessage {\n');
    const [problem] = check(GET, SCHEMA, { proto: 'broken.proto' });
    expect(problem).toMatchObject({ code: 'bad-proto', message: expect.stringContaining('broken.proto') });
  });

  it('@grpc/* are loaded lazily: the package imports where they cannot be found', async () => {
    // compiled into a temp folder without node_modules: an eager import of @grpc/* would fail here
    const dir = await tempDir('birdie-grpc-lazy-');
    const parent = await startParent(
      dir,
      "console.log('imported ' + entrypoints.supportedSchemes().join(' ')); process.exit(0);",
    );
    expect(await parent.waitFor('imported ')).toContain(
      'imported bash http node python builtin container grpc',
    );
  });
});
