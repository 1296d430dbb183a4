/**
 * The child side of a sandboxed `node:` call, run as `node --input-type=module -e NODE_RUNNER <module file> <export>`
 * (so it is never written to disk). The arguments, working directory and caller environment come on stdin as one JSON
 * object; the real stdout carries exactly one JSON envelope (see runner-envelope.ts), and anything the tool prints,
 * `console.log` included, goes to stderr so it cannot corrupt the result. The process exits after the envelope, so a
 * timer the tool left behind cannot hold the call open.
 *
 * A child the tool starts with inherited stdio (`spawnSync(…, { stdio: 'inherit' })`, `execSync` the same, `fork`,
 * which inherits by default) would write into descriptor 1, the envelope's channel. Node.js has no `dup2` to move
 * the channel elsewhere (and stdout is a socket, which `/proc/self/fd/1` cannot reopen), so such a child is started
 * with descriptor 2 where it asked for descriptor 1: it writes where `console.log` does. Its stdin, which would be
 * the runner's (the arguments' pipe, read to its end before the tool's module is imported), is `'ignore'`: the same
 * end of file, without a descriptor of the call's plumbing. The same rewrite as for an in-process call's children
 * (node-call-children.ts), here for the whole process, which is the tool's.
 */
export const NODE_RUNNER = `
import childProcess from 'node:child_process';
import { syncBuiltinESMExports } from 'node:module';
import { pathToFileURL } from 'node:url';
const [file, exportName] = process.argv.slice(1);
const sharesStdio = (slot, k) => {
  const fd =
    slot === 'inherit' ? k : typeof slot === 'number' ? slot : slot !== null && typeof slot === 'object' ? slot.fd : -1;
  return fd === 1 || (fd === 0 && k === 0);
};
const offStdio = (options) => {
  if (options === null || typeof options !== 'object') return options;
  const { stdio } = options;
  if (stdio === 'inherit') return { ...options, stdio: ['ignore', 2, 'inherit'] };
  if (!Array.isArray(stdio) || !stdio.some(sharesStdio)) return options;
  return { ...options, stdio: stdio.map((slot, k) => (!sharesStdio(slot, k) ? slot : k === 0 ? 'ignore' : 2)) };
};
const spawnChild = childProcess.ChildProcess.prototype.spawn;
childProcess.ChildProcess.prototype.spawn = function (options) {
  return spawnChild.call(this, offStdio(options));
};
for (const name of ['spawnSync', 'execSync', 'execFileSync']) {
  const original = childProcess[name];
  childProcess[name] = function (...args) {
    const at = args.findLastIndex((arg) => arg !== null && typeof arg === 'object' && !Array.isArray(arg));
    if (at >= 0) args[at] = offStdio(args[at]);
    return original.apply(this, args);
  };
}
syncBuiltinESMExports();
const out = process.stdout.write.bind(process.stdout);
process.stdout.write = process.stderr.write.bind(process.stderr);
const reasonOf = (error) => (error instanceof Error ? error.message : String(error));
async function reply(text, code) {
  await new Promise((done) => out(text, done));
  process.exit(code);
}
const fail = (kind, error, code) => reply(JSON.stringify({ ok: false, kind, error }), code);
process.stdin.setEncoding('utf8');
let input = '';
for await (const chunk of process.stdin) input += chunk;
const { args, cwd, env } = JSON.parse(input);
let module;
try {
  module = await import(pathToFileURL(file).href);
} catch (error) {
  console.error(error);
  await fail('module-not-found', reasonOf(error), 2);
}
const fn = module[exportName];
if (typeof fn !== 'function') await fail('export-not-found', exportName, 2);
let value;
try {
  value = await fn(args, { signal: new AbortController().signal, cwd, env });
} catch (error) {
  console.error(error);
  await fail('call-failed', error instanceof Error ? error.name + ': ' + error.message : String(error), 1);
}
let text;
try {
  text = JSON.stringify({ ok: true, result: value });
} catch (error) {
  await fail('bad-output', reasonOf(error), 1);
}
await reply(text, 0);
`;
