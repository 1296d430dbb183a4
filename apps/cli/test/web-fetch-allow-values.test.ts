import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { birdie } from './helpers/birdie-process.js';
import { type Sandbox, sandbox } from './helpers/env.js';

/** The repository's own skills: `web_fetch` as it ships. */
const REPO_SKILLS = fileURLToPath(new URL('../../../skills', import.meta.url));

let box: Sandbox;
beforeEach(async () => {
  box = await sandbox({ BIRDIE_BUNDLED_SKILLS: REPO_SKILLS });
});
afterEach(async () => {
  await box.cleanup();
});

const cli = (argv: string[]) => birdie(argv, { env: box.env, cwd: box.cwd });

describe('web_fetch_allow: a value web_fetch would refuse is refused where it is written', () => {
  it.each(['999.1.1.1', '10.0.0.0/99', 'fd00::/200', '1.2.3'])(
    '`config set web_fetch_allow %s` is refused, nothing written',
    async (value) => {
      const set = await cli(['config', 'set', 'web_fetch_allow', value]);
      expect(set.code).toBe(2);
      expect(set.stderr).toContain('web_fetch_allow');
      expect(set.stderr).toContain(value);
      expect((await cli(['config', 'get', 'web_fetch_allow'])).stdout).not.toContain(value);
    },
  );

  it('accepts real addresses and networks, IPv4 and IPv6', async () => {
    for (const value of ['10.0.0.0/8', '127.0.0.1', 'fd00::/8', '::1']) {
      const set = await cli(['config', 'set', 'web_fetch_allow', value]);
      expect(set.stderr).toBe('');
      expect(set.code).toBe(0);
    }
  });

  it('a config file written by hand with such a value fails at start naming the setting, not BIRDIE_WEB_FETCH_ALLOW', async () => {
    const file = join(box.home, 'config.json');
    await writeFile(file, JSON.stringify({ settings: { web_fetch_allow: ['10.0.0.0/99'] } }));
    const run = await cli(['tool', 'web_fetch', '--args', JSON.stringify({ url: 'http://127.0.0.1:9/' })]);
    expect(run.code).toBe(2);
    expect(run.stderr).toContain('web_fetch_allow');
    expect(run.stderr).toContain(file);
    expect(run.stderr).not.toContain('BIRDIE_WEB_FETCH_ALLOW');
    expect(JSON.parse(await readFile(file, 'utf8'))).toEqual({
      settings: { web_fetch_allow: ['10.0.0.0/99'] },
    });
  });
});
