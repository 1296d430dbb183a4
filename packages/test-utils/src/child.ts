import { type ChildProcess, spawn } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';

export interface Child {
  child: ChildProcess;
  /** Writes one line to the child's stdin. */
  send(line: string): void;
  /** stdout lines so far. */
  lines: string[];
  stderr(): string;
  exited: Promise<number | null>;
  waitFor(predicate: (line: string) => boolean): Promise<string>;
}

/**
 * Runs `source` (an ES module) in a child `node`, under `wrap` (a command prefix such as an `unshare -m sh -c …`
 * mount namespace) if given. The module is written to a file in `dir`, so wrappers need no quoting.
 */
export function spawnModule(dir: string, source: string, args: string[] = [], wrap: string[] = []): Child {
  const file = join(dir, `script-${process.pid}-${scripts++}.mjs`);
  writeFileSync(file, source);
  const [command, ...rest] = [...wrap, process.execPath, file, ...args];
  const child = spawn(command!, rest, { stdio: ['pipe', 'pipe', 'pipe'] });
  const lines: string[] = [];
  const waiters: [(line: string) => boolean, (line: string) => void][] = [];
  let buffer = '';
  let stderr = '';
  child.stderr!.on('data', (d) => {
    stderr += d;
  });
  child.stdout!.on('data', (d) => {
    buffer += d;
    for (let nl = buffer.indexOf('\n'); nl >= 0; nl = buffer.indexOf('\n')) {
      const line = buffer.slice(0, nl);
      buffer = buffer.slice(nl + 1);
      lines.push(line);
      for (const w of [...waiters]) {
        if (w[0](line)) {
          waiters.splice(waiters.indexOf(w), 1);
          w[1](line);
        }
      }
    }
  });
  let signal: string | null = null;
  const exited = new Promise<number | null>((resolve) =>
    child.on('exit', (code, sig) => {
      signal = sig;
      resolve(code);
    }),
  );
  return {
    child,
    send: (line) => child.stdin!.write(`${line}\n`),
    lines,
    stderr: () => stderr,
    exited,
    waitFor(predicate) {
      const found = lines.find(predicate);
      if (found) return Promise.resolve(found);
      return new Promise((resolve, reject) => {
        waiters.push([predicate, resolve]);
        void exited.then((code) =>
          reject(
            new Error(
              `child exited (${code ?? signal}) before the line; stderr: ${stderr}; stdout: ${lines.join('\n')}`,
            ),
          ),
        );
      });
    },
  };
}
let scripts = 0;
