import { existsSync, readdirSync, statSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CLI_ROOT, type Sandbox, sandbox } from './helpers/env.js';
import { runCli } from './helpers/run-in-process.js';

/**
 * `birdie skills check` (and `skills list --json`) over the shared corpus, the bundled skills and the parser's fixtures,
 * pinned as text: how skills are parsed may change (when and how much is read at load), what is reported may not. The
 * corpus is read in place (`$BIRDIE_CORPUS`, else the first `shared/corpus` found above this checkout).
 */
function findCorpus(): string {
  if (process.env.BIRDIE_CORPUS) return process.env.BIRDIE_CORPUS;
  for (let dir = CLI_ROOT; ; dir = dirname(dir)) {
    const candidate = join(dir, 'shared', 'corpus');
    if (existsSync(join(candidate, 'agentskills'))) return candidate;
    if (dirname(dir) === dir) throw new Error(`no shared/corpus above ${CLI_ROOT}; set BIRDIE_CORPUS`);
  }
}

const REPO = join(CLI_ROOT, '..', '..');
const CORPUS = findCorpus();
const BUNDLED = join(REPO, 'skills');
const FIXTURES = join(REPO, 'packages', 'skill-parser', 'test', 'fixtures');
const snapshot = (name: string) => fileURLToPath(new URL(`./snapshots/${name}`, import.meta.url));

let box: Sandbox;
beforeAll(async () => {
  box = await sandbox({ BIRDIE_BUNDLED_SKILLS: BUNDLED });
});
afterAll(async () => {
  await box.cleanup();
});

/** Both streams and the exit code, with the machine's paths replaced by stable names. */
async function check(argv: string[]): Promise<string> {
  const { code, stdout, stderr } = await runCli(argv, { env: box.env, cwd: box.cwd });
  const text = `$ birdie ${argv.join(' ')}\nexit ${code}\n--- stdout\n${stdout}--- stderr\n${stderr}`;
  return text.replaceAll(CORPUS, '<corpus>').replaceAll(REPO, '<repo>').replaceAll(box.dir.path, '<sandbox>');
}

const folders = (dir: string) =>
  readdirSync(dir)
    .filter((name) => statSync(join(dir, name)).isDirectory())
    .sort()
    .map((name) => join(dir, name));

describe('birdie skills check: output pinned over the corpus and the bundled skills', () => {
  it('the Agent Skills and original birdie corpus folders, checked as folders', async () => {
    const out = await check(['skills', 'check', join(CORPUS, 'agentskills'), join(CORPUS, 'birdie')]);
    await expect(out).toMatchFileSnapshot(snapshot('skills-check-corpus.txt'));
  });

  it("the reference validator's 55 malformed and edge-case skills, one folder each", async () => {
    const out = await check(['skills', 'check', ...folders(join(CORPUS, 'skills-ref'))]);
    await expect(out).toMatchFileSnapshot(snapshot('skills-check-skills-ref.txt'));
  });

  it("the parser's fixtures (tool blocks, setext limits, MCP servers, YAML limits)", async () => {
    const out = await check(['skills', 'check', FIXTURES]);
    await expect(out).toMatchFileSnapshot(snapshot('skills-check-fixtures.txt'));
  });

  it('the bundled skills, checked as a folder', async () => {
    const out = await check(['skills', 'check', BUNDLED]);
    await expect(out).toMatchFileSnapshot(snapshot('skills-check-bundled.txt'));
  });

  it('every layer loaded together: bundled, then both corpus folders with --skills-dir (check and list)', async () => {
    const dirs = ['--skills-dir', join(CORPUS, 'agentskills'), '--skills-dir', join(CORPUS, 'birdie')];
    const out = await check(['skills', 'check', ...dirs]);
    await expect(out).toMatchFileSnapshot(snapshot('skills-check-layers.txt'));
    const list = await check(['skills', 'list', '--json', ...dirs]);
    await expect(list).toMatchFileSnapshot(snapshot('skills-list-layers.txt'));
  });
});
