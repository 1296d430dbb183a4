import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { BIN, CLI_ROOT, type Sandbox, sandbox, scripted, TEST_SKILLS } from './helpers/env.js';
import { packageOf, sourcesOf, traceImports } from './helpers/loaded-modules.mjs';
import { Terminal } from './helpers/pty.js';

const modulesLoadedBy = (args: string[]): Promise<string[]> =>
  traceImports(BIN, args, { env: box.env, cwd: box.cwd });
const cliSources = (sources: string[]) =>
  sources.filter((s) => s.startsWith('apps/cli/src/')).map((s) => s.slice('apps/cli/src/'.length));
const packagesIn = (sources: string[]): string[] => [...new Set(sources.map(packageOf))].sort();
/** The Markdown renderer's own modules (`@birdie/terminal/markdown`, bundled from the package's dist). */
const markdownRenderer = (sources: string[]) =>
  sources.filter((s) => s.startsWith('packages/terminal/dist/markdown/'));

/** What the REPL's Markdown rendering brings: the parser, GFM and the highlighter. */
const MARKDOWN_RENDERING = [
  'mdast-util-from-markdown',
  'micromark-extension-gfm',
  'mdast-util-gfm',
  'lowlight',
  'highlight.js',
];

let box: Sandbox;
beforeEach(async () => {
  box = await sandbox(scripted('count.json'));
});
afterEach(async () => {
  await box.cleanup();
});

describe('cold start stays light (the bundled CLI)', () => {
  it('--version loads the entry, its argument parser and nothing else: no dependency, no command', async () => {
    const urls = await modulesLoadedBy(['--version']);
    const outside = urls.filter((u) => !u.startsWith('node:') && !u.includes('/apps/cli/dist/'));
    expect(outside).toEqual([]);
    const sources = sourcesOf(urls);
    expect(packagesIn(sources)).toEqual(['birdie', 'node:']);
    // Nothing of the editor protocol: not the ACP package, not its SDK, not the acp command.
    for (const unneeded of ['@birdie/acp', '@agentclientprotocol/sdk'])
      expect(packagesIn(sources)).not.toContain(unneeded);
    expect(cliSources(sources)).toEqual([
      'argv.ts',
      'bin.ts',
      // What says "birdie's files changed while it ran" must not need a file of its own loaded later.
      'install-changed.ts',
      'io.ts',
      'main.ts',
      'spec.ts',
      'suggest.ts',
      'version.ts',
    ]);
  });

  it('--help adds only the help text', async () => {
    for (const args of [['--help'], ['run', '--help'], ['serve', '--help']]) {
      const sources = sourcesOf(await modulesLoadedBy(args));
      expect(packagesIn(sources), args.join(' ')).toEqual(['birdie', 'node:']);
      expect(cliSources(sources), args.join(' ')).toEqual([
        'argv.ts',
        'bin.ts',
        'help.ts',
        'install-changed.ts',
        'io.ts',
        'main.ts',
        'spec.ts',
        'suggest.ts',
        'version.ts',
      ]);
    }
  });

  it('a scripted run loads the bundle and better-sqlite3, and no vendor package, MCP client, prompt UI or other command', async () => {
    const urls = await modulesLoadedBy(['run', 'count these', '--skills-dir', TEST_SKILLS]);
    // Everything JS comes from the bundle; the native addon is the one package loaded from node_modules.
    const outside = urls.filter((u) => !u.startsWith('node:') && !u.includes('/apps/cli/dist/'));
    expect(packagesIn(sourcesOf(outside))).toEqual(['better-sqlite3']);

    const sources = sourcesOf(urls);
    const packages = packagesIn(sources);
    for (const needed of ['@langchain/langgraph', '@langchain/core', '@birdie/graph', '@birdie/store'])
      expect(packages).toContain(needed);
    for (const unneeded of [
      '@langchain/openai',
      '@langchain/anthropic',
      '@langchain/google-genai',
      '@langchain/mistralai',
      '@langchain/ollama',
      'openai',
      '@anthropic-ai/sdk',
      '@langchain/mcp-adapters',
      '@modelcontextprotocol/sdk',
      '@clack/core',
      '@clack/prompts',
      '@birdie/acp',
      '@agentclientprotocol/sdk',
      'langchain',
      // The HTTP server and the PostgreSQL back end load only for `birdie serve` and a configured database.
      '@birdie/server',
      'hono',
      '@hono/node-server',
      '@birdie/store-postgres',
      'pg',
      '@grpc/grpc-js',
      '@grpc/proto-loader',
      'protobufjs',
      // The skill parser's fast route reads Markdown with micromark alone; remark and unified belong to its separate
      // `@birdie/skill-parser/unified` entry point, which the CLI never imports.
      'unified',
      'remark-parse',
      'remark-frontmatter',
      'mdast-util-from-markdown',
      // Answers are rendered as Markdown in the REPL only, never for `run`.
      ...MARKDOWN_RENDERING,
    ])
      expect(packages, unneeded).not.toContain(unneeded);
    // Of the CLI's own modules: the run command and what it wires, never the REPL, setup or another command.
    const own = cliSources(sources);
    expect(markdownRenderer(sources)).toEqual([]);
    expect(own.filter((s) => s.startsWith('commands/'))).toEqual(['commands/run.ts']);
    expect(own.filter((s) => s.startsWith('repl/') || s === 'setup.ts' || s === 'help.ts')).toEqual([]);
  });

  it('a run whose skills and agents are unchanged since the last run parses none: the Markdown reader of the skill parser is not loaded', async () => {
    const run = ['run', 'count these', '--skills-dir', TEST_SKILLS];
    // The first run parses them (and keeps them in the cache folder) …
    expect(packagesIn(sourcesOf(await modulesLoadedBy(run)))).toContain('micromark');
    // … the next one reads them back without loading the parser's readers.
    const packages = packagesIn(sourcesOf(await modulesLoadedBy(run)));
    expect(packages.filter((name) => name.startsWith('micromark'))).toEqual([]);
  }, 120_000);

  it('birdie acp loads @birdie/acp and the ACP SDK from the bundle, and no other command', async () => {
    const initialize = `${JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: 1 } })}\n`;
    const urls = await traceImports(BIN, ['acp', '--skills-dir', TEST_SKILLS], {
      env: box.env,
      cwd: box.cwd,
      input: initialize,
    });
    const outside = urls.filter((u) => !u.startsWith('node:') && !u.includes('/apps/cli/dist/'));
    expect(packagesIn(sourcesOf(outside))).toEqual(['better-sqlite3']);
    const sources = sourcesOf(urls);
    for (const needed of ['@birdie/acp', '@agentclientprotocol/sdk'])
      expect(packagesIn(sources)).toContain(needed);
    expect(packagesIn(sources)).not.toContain('langchain');
    expect(cliSources(sources).filter((s) => s.startsWith('commands/'))).toEqual(['commands/acp.ts']);
  });

  it('tokens list loads the store and nothing of the agent, the server or PostgreSQL', async () => {
    // (The SQLite store's checkpointer extends LangGraph's saver, so the store brings @langchain/langgraph with it.)
    const packages = packagesIn(sourcesOf(await modulesLoadedBy(['tokens', 'list'])));
    expect(packages).toContain('@birdie/store');
    for (const unneeded of [
      '@birdie/graph',
      '@birdie/providers',
      '@birdie/server',
      'hono',
      '@birdie/store-postgres',
      'pg',
    ])
      expect(packages, unneeded).not.toContain(unneeded);
  });

  it('the REPL draws its first prompt without the Markdown renderer, and loads it for the first answer', async () => {
    const trace = join(box.cwd, 'trace.txt');
    // A terminal with colors, where answers are rendered (the sandbox sets NO_COLOR, which turns rendering off).
    const { NO_COLOR: _, ...env } = box.env;
    const t = new Terminal(['--skills-dir', TEST_SKILLS], {
      env: {
        ...env,
        ...scripted('repl.json'),
        NODE_OPTIONS: `--import ${join(CLI_ROOT, 'test', 'helpers', 'trace-imports.mjs')}`,
        BIRDIE_TRACE_FILE: trace,
      },
      cwd: box.cwd,
    });
    try {
      const loaded = async () => sourcesOf([...new Set((await readFile(trace, 'utf8')).trim().split('\n'))]);
      await t.expect('/help for commands');
      await t.submit('/session info'); // the runtime is up, and still no answer
      await t.expect(/session \S+ · user tester/);
      const atStart = await loaded();
      for (const name of MARKDOWN_RENDERING) expect(packagesIn(atStart), name).not.toContain(name);
      expect(markdownRenderer(atStart)).toEqual([]);

      await t.submit('show markdown');
      await t.expect('That is all.');
      const afterAnswer = await loaded();
      for (const name of MARKDOWN_RENDERING) expect(packagesIn(afterAnswer), name).toContain(name);
      expect(markdownRenderer(afterAnswer)).toContain('packages/terminal/dist/markdown/terminal.js');
      await t.submit('/quit');
      expect(await t.exited).toBe(0);
    } finally {
      t.kill();
    }
  });
});
