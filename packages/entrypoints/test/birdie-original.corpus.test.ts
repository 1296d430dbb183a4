import { existsSync } from 'node:fs';
import { readdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { checkEntrypoint, resolveEntrypoint } from '../src/index.js';
import { tempDir } from './helpers.js';

/** Entrypoints of the original Python birdie's skills, read from ../shared/corpus beside the checkout. */
const corpus =
  process.env.BIRDIE_CORPUS ?? fileURLToPath(new URL('../../../../shared/corpus', import.meta.url));
const manifestPath = join(corpus, 'birdie/MANIFEST.json');

interface Tool {
  name: string;
  entrypoint: string;
  schema?: { properties?: Record<string, { default?: unknown }> };
}

async function tools(): Promise<Tool[]> {
  const manifest = JSON.parse(await readFile(manifestPath, 'utf8')) as {
    skills: { parsed?: { tools?: Tool[] } }[];
  };
  return manifest.skills.flatMap((skill) => skill.parsed?.tools ?? []);
}

describe('entrypoints of the original birdie skills', () => {
  it('all resolve; only run_bash is raw; placeholders are schema properties', async () => {
    const all = await tools();
    expect(all.length).toBeGreaterThan(5);
    for (const tool of all) {
      expect(
        checkEntrypoint(tool.entrypoint, { skillDir: '/tmp', schema: tool.schema as never }),
        tool.name,
      ).toEqual([]);
      const ep = resolveEntrypoint(tool.entrypoint, { skillDir: '/tmp', schema: tool.schema as never });
      expect(ep.raw, tool.name).toBe(tool.entrypoint === 'bash:{command}');
      for (const name of ep.placeholders)
        expect(Object.keys(tool.schema?.properties ?? {}), tool.name).toContain(name);
    }
  });

  it('runs the filesystem tools on hostile content without executing it', async () => {
    const byName = new Map((await tools()).map((tool) => [tool.name, tool]));
    const dir = await tempDir();
    const run = (name: string, args: Record<string, unknown>) => {
      const tool = byName.get(name)!;
      return resolveEntrypoint(tool.entrypoint, { skillDir: dir, schema: tool.schema as never }).run(args);
    };
    const content = '$(touch PWNED) `touch PWNED`; touch PWNED "\' \n--help';
    const path = join(dir, '-n; touch PWNED');
    await run('write_file', { content, path });
    await run('append_file', { content: 'more', path });
    expect((await run('read_file', { path })).output).toBe(`${content}\nmore\n`);
    expect(await readdir(dir)).toEqual(['-n; touch PWNED']);
    expect(existsSync(join(dir, 'PWNED'))).toBe(false);
  });

  it('refuses option-like paths where cat, ls and mkdir would read options, and writes leading-dash text', async () => {
    const byName = new Map((await tools()).map((tool) => [tool.name, tool]));
    const dir = await tempDir();
    const run = (name: string, args: Record<string, unknown>) => {
      const tool = byName.get(name)!;
      return resolveEntrypoint(tool.entrypoint, { skillDir: dir, schema: tool.schema as never }).run(args);
    };
    // `> {path}` is a redirection target, so write_file makes a file named --version; echo prints '---' as is
    await run('write_file', { content: '---\ntitle: x\n---', path: '--version' });
    await run('append_file', { content: '- item', path: '--version' });
    for (const [name, path] of [
      ['read_file', '--version'],
      ['list_dir', '--help'],
      ['create_directory', '--mode=777'],
    ] as const) {
      await expect(run(name, { path }), name).rejects.toMatchObject({
        code: 'bad-argument',
        message: expect.stringContaining(`pass it as "./${path}"`),
      });
    }
    await expect(run('write_file', { content: '-e', path: 'x' })).rejects.toMatchObject({
      code: 'bad-argument',
    });
    expect((await run('read_file', { path: './--version' })).output).toBe('---\ntitle: x\n---\n- item\n');
    expect(await readdir(dir)).toEqual(['--version']);
  });
});
