import { execFile } from 'node:child_process';
import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { promisify } from 'node:util';
import * as grpc from '@grpc/grpc-js';
import * as loader from '@grpc/proto-loader';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BIN, type Sandbox, sandbox } from './helpers/env.js';

const exec = promisify(execFile);

const PROTO = `syntax = "proto3";
package shop.v1;
message PriceRequest { string item = 1; int32 count = 2; }
message Price { string item = 1; int64 cents = 2; }
service Shop { rpc Quote(PriceRequest) returns (Price); }
`;

const skill = (port: number, countType: string) => `---
name: shop
description: Prices from the shop service.
---

## Tools

### quote
description: The price of some items.
entrypoint: grpc:127.0.0.1:${port}/shop.v1.Shop/Quote
proto: shop.proto
metadata:
  x-client: birdie
schema:
  type: object
  properties:
    item: { type: string }
    count: { type: ${countType} }
  required: [item, count]
`;

let box: Sandbox;
let server: grpc.Server;
let port: number;
let skills: string;

beforeAll(async () => {
  box = await sandbox();
  skills = join(box.dir.path, 'skills');
  await mkdir(join(skills, 'shop'), { recursive: true });
  await writeFile(join(skills, 'shop', 'shop.proto'), PROTO);
  const definition = loader.loadSync(join(skills, 'shop', 'shop.proto'), { keepCase: true, longs: String });
  server = new grpc.Server();
  server.addService(definition['shop.v1.Shop'] as unknown as grpc.ServiceDefinition, {
    Quote(
      call: grpc.ServerUnaryCall<{ item: string; count: number }, unknown>,
      done: grpc.sendUnaryData<unknown>,
    ) {
      const client = String(call.metadata.get('x-client')[0] ?? '');
      done(null, { item: `${call.request.item} for ${client}`, cents: String(call.request.count * 250) });
    },
  });
  port = await new Promise<number>((resolve, reject) =>
    server.bindAsync('127.0.0.1:0', grpc.ServerCredentials.createInsecure(), (e, p) =>
      e ? reject(e) : resolve(p),
    ),
  );
});

afterAll(async () => {
  await new Promise<void>((resolve) => server.tryShutdown(() => resolve()));
  await box.cleanup();
});

/** The compiled, bundled CLI: @grpc/* are loaded from node_modules at run time, not from the bundle. */
const birdie = (args: string[]) =>
  exec(process.execPath, [BIN, ...args], { env: box.env, cwd: box.cwd }).catch(
    (error: { stdout: string; stderr: string; code: number }) => error,
  );

describe('a grpc: tool through the built CLI', { timeout: 60_000 }, () => {
  it('birdie tool calls the local server and prints the response as JSON', async () => {
    await writeFile(join(skills, 'shop', 'SKILL.md'), skill(port, 'integer'));
    const { stdout } = await birdie([
      'tool',
      'quote',
      '--skills-dir',
      skills,
      '--args',
      '{"item":"pear","count":3}',
    ]);
    expect(JSON.parse(stdout)).toEqual({ item: 'pear for birdie', cents: '750' });
  });

  it('skills check compares the schema with the proto message, at the method name', async () => {
    await writeFile(join(skills, 'shop', 'SKILL.md'), skill(port, 'string'));
    const result = await birdie(['skills', 'check', skills]);
    expect(result).toMatchObject({ code: 1 });
    const column = 'entrypoint: '.length + `grpc:127.0.0.1:${port}/shop.v1.Shop/`.length + 1;
    expect(result.stdout).toContain(
      `SKILL.md:10:${column}  error  Tool \`quote\` is refused: grpc:127.0.0.1:${port}/shop.v1.Shop/Quote: the tool's schema does not match shop.v1.PriceRequest: property "count" has type string in the schema, but shop.v1.PriceRequest.count is int32 (use type: integer)  registry:schema-mismatch`,
    );
  });
});
