import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { birdie } from './helpers/birdie-process.js';
import { type Sandbox, sandbox } from './helpers/env.js';

let box: Sandbox;
beforeEach(async () => {
  box = await sandbox();
});
afterEach(async () => {
  await box.cleanup();
});

const cli = (args: string[]) => birdie(args, { env: box.env, cwd: box.cwd });
const configFile = () => join(box.home, 'config.json');
const settingsOnDisk = async () => JSON.parse(await readFile(configFile(), 'utf8')).settings;

describe('birdie config repairs a bad value in its own file', () => {
  it('set replaces an invalid value of the key: the result is checked, not the file as it was', async () => {
    await writeFile(configFile(), '{"settings":{"approval":"nevr"}}');
    const set = await cli(['config', 'set', 'approval', 'never']);
    expect(set.stderr).toBe('');
    expect(set.code).toBe(0);
    expect(await settingsOnDisk()).toEqual({ approval: 'never' });
  });

  it('unset removes an invalid value', async () => {
    await writeFile(configFile(), '{"settings":{"approval":"nevr","titles":"model"}}');
    const unset = await cli(['config', 'unset', 'approval']);
    expect(unset.stderr).toBe('');
    expect(unset.code).toBe(0);
    expect(await settingsOnDisk()).toEqual({ titles: 'model' });
  });

  it('a problem another key already had does not stop the change: it is said, pointed at in the file, with its fix', async () => {
    await writeFile(
      configFile(),
      '{\n  "settings": {\n    "approval": "nevr",\n    "titles": "often"\n  }\n}\n',
    );
    const set = await cli(['config', 'set', 'approval', 'never']);
    expect(set.code).toBe(0);
    expect(set.stdout).toBe(`approval = never (in ${configFile()})\n`);
    // the line and column of the file as it now is
    expect(set.stderr).toBe(
      `birdie: Invalid config in file ${configFile()} at line 4, column 5: settings.titles must be prompt or model; \`birdie config set titles VALUE\` or \`birdie config unset titles\` fixes it\n`,
    );
    expect(await settingsOnDisk()).toEqual({ approval: 'never', titles: 'often' });
    const unset = await cli(['config', 'unset', 'titles']);
    expect(unset).toMatchObject({ code: 0, stderr: '' });
    expect(await settingsOnDisk()).toEqual({ approval: 'never' });
    expect((await cli(['config', 'list'])).code).toBe(0);
  });

  it('an unknown setting in the file is named with the command that removes it, and unset removes it', async () => {
    await writeFile(
      configFile(),
      '{"settings":{"approval":"never","aproval":"never","serve":{"limitz":{}}}}',
    );
    const list = await cli(['config', 'list']);
    expect(list.code).toBe(2);
    expect(list.stderr).toContain('unknown setting "settings.aproval"');
    expect(list.stderr).toContain('`birdie config unset aproval` removes it');
    const unset = await cli(['config', 'unset', 'aproval']);
    expect(unset.stdout).toBe(`aproval unset (in ${configFile()})\n`);
    // what the file still has wrong is said, with its own fix
    expect(unset.stderr).toContain('`birdie config unset serve.limitz` removes it');
    expect(unset.code).toBe(0);
    expect(await cli(['config', 'unset', 'serve.limitz'])).toMatchObject({ code: 0, stderr: '' });
    expect(await settingsOnDisk()).toEqual({ approval: 'never' });
    expect((await cli(['config', 'list'])).code).toBe(0);
  });

  it('unset of a name that is neither a setting nor in the file stays a usage error, and writes nothing', async () => {
    const text = '{"settings":{"approval":"never"}}';
    await writeFile(configFile(), text);
    const unset = await cli(['config', 'unset', 'aproval']);
    expect(unset.code).toBe(2);
    expect(unset.stderr).toContain('unknown setting "aproval". Did you mean "approval"?');
    expect(await readFile(configFile(), 'utf8')).toBe(text);
    // a section of settings is not a setting: unset names one setting
    expect((await cli(['config', 'unset', 'serve'])).code).toBe(2);
  });

  it('add and remove refuse a list setting that holds something else, and write nothing', async () => {
    const text = '{"settings":{"skills":{"enable":"foo"}}}';
    await writeFile(configFile(), text);
    for (const change of ['add', 'remove']) {
      const refused = await cli(['config', change, 'skills.enable', 'x']);
      expect(refused.code).toBe(2);
      expect(refused.stderr).toContain('skills.enable in');
      expect(refused.stderr).toContain('is not a list (it holds "foo")');
      expect(await readFile(configFile(), 'utf8')).toBe(text);
    }
    // A removal of an entry the list does not have writes nothing either.
    await writeFile(configFile(), '{"settings":{"skills":{"enable":["a"]},"titles":"often"}}');
    const missing = await cli(['config', 'remove', 'skills.enable', 'x']);
    expect(missing.code).toBe(2);
    expect(missing.stderr).toContain('has no entry "x"');
    expect(await readFile(configFile(), 'utf8')).toBe(
      '{"settings":{"skills":{"enable":["a"]},"titles":"often"}}',
    );
  });

  it('add and remove of a list work past a problem elsewhere; a list entry made bad names the change', async () => {
    await writeFile(configFile(), '{"settings":{"titles":"often"}}');
    const add = await cli(['config', 'add', 'permissions.allow', 'run_bash(git log *)']);
    expect(add.code).toBe(0);
    expect(add.stderr).toContain('settings.titles must be prompt or model');
    expect(await settingsOnDisk()).toEqual({
      titles: 'often',
      permissions: { allow: ['run_bash(git log *)'] },
    });
    const bad = await cli(['config', 'add', 'memory_files', 'docs/NOTES.md']);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toContain(
      'add memory_files "docs/NOTES.md": settings.memory_files.0 must be plain file names',
    );
  });

  it('a new invalid value still names the change, and the file is left as it was', async () => {
    await writeFile(configFile(), '{"settings":{"approval":"nevr"}}');
    const bad = await cli(['config', 'set', 'approval', 'sometimes']);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toBe(
      `birdie: approval "sometimes": settings.approval must be ask, always or never; ${configFile()} is unchanged\n`,
    );
    expect(await readFile(configFile(), 'utf8')).toBe('{"settings":{"approval":"nevr"}}');
  });

  it('list and get show the file with the invalid value marked, say where it is, and exit 2', async () => {
    await writeFile(configFile(), '{"settings":{"approval":"nevr","titles":"model"}}');
    const list = await cli(['config', 'list']);
    expect(list.code).toBe(2);
    expect(list.stdout).toMatch(
      new RegExp(`approval\\s+nevr \\(invalid: must be ask, always or never\\)\\s+file ${configFile()}`),
    );
    expect(list.stdout).toMatch(new RegExp(`titles\\s+model\\s+file ${configFile()}`));
    expect(list.stdout).toMatch(/sandbox\s+declared\s+default/);
    expect(list.stderr).toBe(
      `birdie: Invalid config in file ${configFile()} at line 1, column 14: settings.approval must be ask, always or never; \`birdie config set approval VALUE\` or \`birdie config unset approval\` fixes it\n`,
    );
    const json = await cli(['config', 'list', '--json']);
    expect(json.code).toBe(2);
    const approval = json.stdout
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line))
      .find((row) => row.key === 'approval');
    expect(approval).toEqual({
      key: 'approval',
      value: 'nevr',
      source: `file ${configFile()}`,
      invalid: 'must be ask, always or never',
    });
    const get = await cli(['config', 'get', 'titles']);
    expect(get).toMatchObject({ code: 2, stdout: 'model\n' });
    expect(get.stderr).toContain('settings.approval must be ask, always or never');
  });

  // Reported: a deny pattern a start refuses (`run_bash(git push`, unclosed) was listed as if valid, exit 0, while
  // every command that starts a session failed on it.
  it('an approval pattern a start refuses is marked in list and get, said on stderr with where it is, exit 2', async () => {
    await writeFile(configFile(), '{"settings":{"permissions":{"deny":["run_bash(git push"]}}}');
    const run = await cli(['run', 'hello']);
    expect(run.code).toBe(2);
    expect(run.stderr).toContain('is not an approval pattern');
    const list = await cli(['config', 'list']);
    expect(list.code, list.stderr).toBe(2);
    expect(list.stdout).toMatch(
      /permissions\.deny\s+run_bash\(git push \(invalid: \[0\] "run_bash\(git push" is not an approval pattern: /,
    );
    expect(list.stderr).toMatch(
      new RegExp(
        `^birdie: Invalid config in file ${configFile()} at line 1, column \\d+: settings\\.permissions\\.deny\\[0\\] "run_bash\\(git push" is not an approval pattern: .*; \`birdie config remove permissions\\.deny 'run_bash\\(git push'\` fixes it\n$`,
      ),
    );
    const get = await cli(['config', 'get', 'permissions.deny']);
    expect(get.code).toBe(2);
    expect(get.stdout).toContain('(invalid: [0] "run_bash(git push" is not an approval pattern');
    // The fix the message gives works.
    expect((await cli(['config', 'remove', 'permissions.deny', 'run_bash(git push'])).code).toBe(0);
    expect((await cli(['config', 'list'])).code).toBe(0);
  });

  it('a key no setting has is shown on stderr; the settings list still shows', async () => {
    await writeFile(configFile(), '{"settings":{"aproval":"never","titles":"model"}}');
    const list = await cli(['config', 'list']);
    expect(list.code).toBe(2);
    expect(list.stdout).toMatch(new RegExp(`titles\\s+model\\s+file ${configFile()}`));
    expect(list.stderr).toContain('unknown setting "settings.aproval"');
  });

  it('a file that is not JSON still stops every config command with the parse error naming the file', async () => {
    await writeFile(configFile(), '{"settings":{"approval":"never",}}');
    for (const args of [
      ['config', 'list'],
      ['config', 'set', 'approval', 'never'],
      ['config', 'unset', 'approval'],
    ]) {
      const result = await cli(args);
      expect(result.code).toBe(2);
      expect(result.stderr).toContain(`Invalid JSON in file ${configFile()} at line 1`);
    }
  });
});
