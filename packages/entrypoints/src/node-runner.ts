/**
 * The child side of a sandboxed `node:` call, run as `node --input-type=module -e NODE_RUNNER <module file> <export>`
 * (so it is never written to disk). The arguments, working directory and caller environment come on stdin as one JSON
 * object; the real stdout carries exactly one JSON envelope (see runner-envelope.ts), and anything the tool prints,
 * `console.log` included, goes to stderr so it cannot corrupt the result. The process exits after the envelope, so a
 * timer the tool left behind cannot hold the call open.
 */
export const NODE_RUNNER = `
import { pathToFileURL } from 'node:url';
const [file, exportName] = process.argv.slice(1);
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
