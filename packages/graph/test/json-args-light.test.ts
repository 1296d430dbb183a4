import { execFile } from 'node:child_process';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

// Defect: json-args (the tools' argument check, loaded by `@birdie/graph/tools` for `birdie tool`) imported the whole
// `@birdie/skill-parser` for one function, `schemaProblems`: loading it loaded the SKILL.md parser (micromark, YAML,
// cron). It must come from the parser's light `./json-schema` entry. Checked on the built module, as a package user
// loads it, with loader hooks that list every module a fresh Node process loads.

const JSON_ARGS = fileURLToPath(new URL('../dist/json-args.js', import.meta.url));
// A Node process on a busy machine loads LangChain's validator from scratch: that can take seconds.
const SLOW = 60_000;

let scratch: string;

beforeAll(async () => {
  scratch = await mkdtemp(join(tmpdir(), 'birdie-json-args-'));
});

afterAll(async () => {
  await rm(scratch, { recursive: true, force: true });
});

/** The file URLs a fresh Node process loads to import `module`. */
async function modulesLoadedBy(module: string): Promise<string[]> {
  const log = join(scratch, 'loaded.txt');
  const hooks = join(scratch, 'hooks.mjs');
  const main = join(scratch, 'main.mjs');
  await writeFile(
    hooks,
    `import { appendFileSync } from 'node:fs';
export async function load(url, context, next) {
  if (url.startsWith('file:')) appendFileSync(${JSON.stringify(log)}, url + '\\n');
  return next(url, context);
}
`,
  );
  await writeFile(
    main,
    `import { register } from 'node:module';
register(${JSON.stringify(pathToFileURL(hooks).href)});
await import(${JSON.stringify(pathToFileURL(module).href)});
`,
  );
  await writeFile(log, '');
  await promisify(execFile)(process.execPath, [main]);
  return (await readFile(log, 'utf8')).split('\n').filter(Boolean);
}

describe('json-args loads only the schema check of @birdie/skill-parser', { timeout: SLOW }, () => {
  it('does not load the SKILL.md parser or its Markdown and YAML modules', async () => {
    const loaded = await modulesLoadedBy(JSON_ARGS);
    // the hooks saw the module itself: the list is real
    expect(loaded.some((url) => url.endsWith('/graph/dist/json-args.js'))).toBe(true);
    expect(loaded.some((url) => url.includes('/skill-parser/dist/'))).toBe(true);
    // (zod is not listed: LangChain's validator loads it too)
    const heavy = loaded.filter((url) =>
      /\/skill-parser\/dist\/(index|parse-skill)\.js$|\/node_modules\/(\.pnpm\/)?(micromark|unified|remark|yaml|croner)[^/]*\//.test(
        url,
      ),
    );
    expect(heavy).toEqual([]);
  });
});
