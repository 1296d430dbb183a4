// node examples/basic.mjs   (after `pnpm --filter @birdie/entrypoints build`)
import { mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { EntrypointError, resolveEntrypoint } from '@birdie/entrypoints';

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
  if (error instanceof EntrypointError) console.log(error.code, '|', error.message);
}

// The original read_file template: '--version' would be an option to cat, so it is refused before cat starts.
try {
  await resolveEntrypoint('bash:cat {path}', { skillDir }).run({ path: '--version' });
} catch (error) {
  if (error instanceof EntrypointError) console.log(error.code, '|', error.message);
}

try {
  resolveEntrypoint('grpc:weather.Forecast/Get', { skillDir });
} catch (error) {
  console.log(error.code, '|', error.message);
}

rmSync(skillDir, { recursive: true });
