// node examples/basic.mjs   (after `pnpm --filter @birdie/entrypoints build`)
import { mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { checkEntrypoint, EntrypointError, redactUrl, resolveEntrypoint } from '@birdie/entrypoints';

const skillDir = mkdtempSync(join(tmpdir(), 'skill-'));

// The original Python write_file template: a shell-injection hole there, plain data here.
const writeFile = resolveEntrypoint('bash:echo "{content}" > {path}; cat -- {path}', { skillDir });
console.log(writeFile.placeholders, writeFile.raw);
const result = await writeFile.run({ content: 'hi $(touch PWNED) `id`; rm -rf ~', path: '--version' });
console.log(result);
console.log(readdirSync(skillDir));

try {
  await resolveEntrypoint('bash:ls {path}', { skillDir }).run({ path: 'no such dir' });
} catch (error) {
  // the output (stdout and stderr merged) travels beside the message, which does not repeat it
  if (error instanceof EntrypointError) console.log(error.code, '|', error.message, '|', error.output.trim());
}

// The original read_file template: '--version' would be an option to cat, so it is refused before cat starts.
try {
  await resolveEntrypoint('bash:cat {path}', { skillDir }).run({ path: '--version' });
} catch (error) {
  if (error instanceof EntrypointError) console.log(error.code, '|', error.message);
}

try {
  resolveEntrypoint('ftp:weather/forecast.csv', { skillDir });
} catch (error) {
  console.log(error.code, '|', error.message);
}

// A container: command is argv: the value stays one word. Here no runtime is installed, so the call says so.
const inContainer = resolveEntrypoint('container:docker.io/library/alpine:3.20 wc -c -- {path}', {
  skillDir,
});
console.log(inContainer.confinement, await inContainer.run({ path: 'a b; rm -rf /' }).catch((e) => e.code));

// A sandboxed bash: tool (bubblewrap) can write only in its working directory.
const sandboxed = resolveEntrypoint('bash:touch made-here && touch /etc/birdie-was-here', {
  skillDir,
  settings: { sandbox: true },
});
console.log(await sandboxed.run({}).catch((e) => `${e.code} | ${e.output.trim()}`));

// The load-time check lists every problem with its offset: a value that reaches arithmetic through a variable
// (bash would run the $( … ) in a value such as a[$(cmd)]), and a placeholder the schema does not declare.
const schema = { type: 'object', properties: { n: { type: 'string' } } };
const problems = checkEntrypoint('bash:n={n}; echo $(( n + 1 )) {m}', { skillDir, schema });
console.log(problems.map((p) => `${p.code} at ${p.offset}`));
// Declared as an integer, the same template is fine: the value is checked to be one when it runs.
schema.properties.n.type = 'integer';
const next = resolveEntrypoint('bash:n={n}; echo $(( n + 1 ))', { skillDir, schema });
console.log((await next.run({ n: 41 })).output.trim());
console.log(redactUrl('https://me:s3cret@api.example.com/v1/items?key=abc123&q=birds'));

rmSync(skillDir, { recursive: true });
