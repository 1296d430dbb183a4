import { PassThrough, Readable } from 'node:stream';
import type { Io } from '../../src/io.js';
import { main } from '../../src/main.js';

export interface Captured {
  code: number;
  stdout: string;
  stderr: string;
}

function capture(): { stream: PassThrough; text: () => string } {
  const stream = new PassThrough();
  const chunks: Buffer[] = [];
  stream.on('data', (c: Buffer) => chunks.push(c));
  return { stream, text: () => Buffer.concat(chunks).toString('utf8') };
}

/** Runs the CLI's `main` in this process with captured streams (no TTY), as a script would see it. */
export async function runCli(
  argv: string[],
  options: { env: NodeJS.ProcessEnv; cwd: string; stdin?: string },
): Promise<Captured> {
  const out = capture();
  const err = capture();
  const io: Io = {
    stdout: out.stream,
    stderr: err.stream,
    stdin: Readable.from(options.stdin === undefined ? [] : [Buffer.from(options.stdin)]),
    env: options.env,
    cwd: options.cwd,
  };
  const code = await main(argv, io);
  return { code, stdout: out.text(), stderr: err.text() };
}
