// `pnpm build`: bundles the CLI with rolldown (config in ./rolldown.config.mjs), copies the bundled skills into
// dist/skills (./bundled-skills.mjs) and prints one summary line.
import { existsSync } from 'node:fs';
import { chmod, cp } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { build } from 'rolldown';
import { copyBundledSkills } from './bundled-skills.mjs';
import config from './rolldown.config.mjs';

const started = performance.now();
const { output } = await build(config);
const dir = join(config.cwd, config.output.dir);
await chmod(join(dir, 'bin.js'), 0o755);
const skills = await copyBundledSkills(undefined, join(dir, 'skills'));
// The web app built into @birdie/server (its dist/web): the bundled server finds it next to itself, as dist/web.
const web = join(
  dirname(createRequire(import.meta.url).resolve('@birdie/server/package.json')),
  'dist',
  'web',
);
const hasWeb = existsSync(join(web, 'index.html'));
if (hasWeb) await cp(web, join(dir, 'web'), { recursive: true });
const chunks = output.filter((o) => o.type === 'chunk');
const size = (bytes) => (bytes < 10_240 ? `${bytes} B` : `${(bytes / 1024).toFixed(0)} KiB`);
const total = chunks.reduce((sum, c) => sum + c.code.length, 0);
const entry = chunks.find((c) => c.fileName === 'bin.js');
console.log(
  `dist/: bin.js (${size(entry.code.length)}) + ${chunks.length - 1} chunks, ${size(total)} in all, ` +
    `${skills.length} bundled skills in dist/skills, ${hasWeb ? 'the web app in dist/web' : 'no web app (not built)'}, in ${((performance.now() - started) / 1000).toFixed(1)} s`,
);
