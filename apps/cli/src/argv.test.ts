import { describe, expect, it } from 'vitest';
import { parseArgv } from './argv.js';
import { UsageError } from './io.js';
import { COMMANDS } from './spec.js';

function usageError(argv: string[]): string {
  try {
    parseArgv(argv);
  } catch (error) {
    expect(error).toBeInstanceOf(UsageError);
    expect((error as UsageError).exitCode).toBe(2);
    return (error as Error).message;
  }
  throw new Error(`expected a usage error for ${argv.join(' ')}`);
}

describe('parseArgv', () => {
  it('knows every command of the issue', () => {
    expect(COMMANDS.map((c) => c.name)).toEqual([
      '',
      'resume',
      'run',
      'acp',
      'skills list',
      'skills check',
      'skills new',
      'agents list',
      'agents check',
      'agents new',
      'tool',
      'mcp',
      'mcp add',
      'mcp list',
      'mcp remove',
      'sessions list',
      'sessions show',
      'sessions rename',
      'sessions delete',
      'sessions repair',
      'trust',
      'config',
      'setup',
      'doctor',
      'logs',
      'logs show',
      'start',
      'tasks list',
      'tasks cancel',
      'serve',
      'channels',
      'tokens create',
      'tokens list',
      'tokens revoke',
      'db status',
      'db migrate',
    ]);
  });

  it('reads `mcp` alone as the server and `mcp add NAME -- COMMAND ARGS` with the command as positionals', () => {
    expect(parseArgv(['mcp', '--http', '8788'])).toMatchObject({
      command: { name: 'mcp' },
      values: { http: '8788' },
    });
    expect(parseArgv(['mcp', 'add', 'files', '--', 'npx', '-y', 'server', '--root', '.'])).toMatchObject({
      command: { name: 'mcp add' },
      positionals: ['files', 'npx', '-y', 'server', '--root', '.'],
    });
  });

  it('reads `logs show ID` as its own command, and `logs` with flags as the log', () => {
    expect(parseArgv(['logs', 'show', '12'])).toMatchObject({
      command: { name: 'logs show' },
      positionals: ['12'],
    });
    expect(parseArgv(['logs', '--status', 'died'])).toMatchObject({
      command: { name: 'logs' },
      values: { status: 'died' },
    });
    expect(parseArgv(['tasks'])).toMatchObject({ command: { name: 'tasks list' } });
    expect(() => parseArgv(['logs', 'shwo'])).toThrow(/unexpected argument "shwo"/);
  });

  it('takes `tokens` and `db` as groups with a default sub-command', () => {
    expect(parseArgv(['tokens'])).toMatchObject({ kind: 'command', command: { name: 'tokens list' } });
    expect(parseArgv(['db'])).toMatchObject({ kind: 'command', command: { name: 'db status' } });
    expect(
      parseArgv(['serve', '--port', '0', '--cors-origin', 'https://a', '--cors-origin', 'https://b']),
    ).toMatchObject({
      values: { port: '0', 'cors-origin': ['https://a', 'https://b'] },
    });
  });

  it('parses the REPL flags, repeatable --skills-dir included', () => {
    const parsed = parseArgv([
      '--user',
      'ann',
      '--skills-dir',
      'a',
      '--skills-dir',
      'b',
      '--approval',
      'never',
    ]);
    expect(parsed).toMatchObject({
      kind: 'command',
      command: { name: '' },
      values: { user: 'ann', 'skills-dir': ['a', 'b'], approval: 'never' },
    });
  });

  it('takes --agents-dir wherever it takes --skills-dir', () => {
    for (const spec of COMMANDS.filter((c) => 'skills-dir' in c.options)) {
      expect(spec.options['agents-dir'], spec.name).toMatchObject({ type: 'string', multiple: true });
    }
    expect(parseArgv(['run', '--agents-dir', 'a', '--agents-dir', 'b', 'hi'])).toMatchObject({
      values: { 'agents-dir': ['a', 'b'] },
    });
  });

  it('routes groups to their sub-command, with list as the default', () => {
    expect(parseArgv(['skills'])).toMatchObject({ command: { name: 'skills list' } });
    expect(parseArgv(['agents'])).toMatchObject({ command: { name: 'agents list' } });
    expect(parseArgv(['sessions', 'show', '2026-01-01_1'])).toMatchObject({
      command: { name: 'sessions show' },
      positionals: ['2026-01-01_1'],
    });
    expect(parseArgv(['run', '-', '--json'])).toMatchObject({ values: { json: true }, positionals: ['-'] });
  });

  it('answers --help for every command and --version at the top', () => {
    for (const command of COMMANDS) {
      const argv = command.name ? [...command.name.split(' '), '--help'] : ['--help'];
      expect(parseArgv(argv).kind).toBe('help');
    }
    expect(parseArgv(['--version'])).toEqual({ kind: 'version' });
    expect(parseArgv(['help', 'run'])).toMatchObject({ kind: 'help', command: { name: 'run' } });
  });

  it('explains mistakes with the closest name', () => {
    expect(usageError(['rnu'])).toContain('Did you mean "run"?');
    expect(usageError(['skills', 'chek'])).toContain('Did you mean "check"?');
    expect(usageError(['run', 'x', '--jsno'])).toContain('Did you mean "--json"?');
    expect(usageError(['run'])).toContain('missing argument');
    expect(usageError(['tool', 'a', 'b'])).toContain('unexpected argument "b"');
    expect(usageError(['logs', '--session'])).toContain('--session needs a value');
  });

  it('takes a prompt as the first word: the REPL with a first message; -p is run; a near-command still suggests', () => {
    expect(parseArgv(['fix the failing tests'])).toMatchObject({
      kind: 'command',
      command: { name: '' },
      positionals: ['fix the failing tests'],
    });
    expect(parseArgv(['hello', '--enable', 'shell'])).toMatchObject({
      command: { name: '' },
      positionals: ['hello'],
      values: { enable: ['shell'] },
    });
    expect(parseArgv(['--', 'run'])).toMatchObject({ command: { name: '' }, positionals: ['run'] });
    // after options the same: a command word or a near miss is not a message unless -- says so
    expect(usageError(['--enable', 'shell', 'rnu'])).toContain('Did you mean "run"?');
    expect(usageError(['--enable', 'run', 'run'])).toContain('"run" is a command: put it first');
    expect(parseArgv(['--enable', 'run', '--', 'run'])).toMatchObject({
      command: { name: '' },
      positionals: ['run'],
      values: { enable: ['run'] },
    });
    expect(parseArgv(['--enable', 'shell', 'fix it'])).toMatchObject({ positionals: ['fix it'] });
    expect(() => parseArgv(['rnu'])).toThrow(
      /unknown command "rnu"\. Did you mean "run"\? To send it as a message: birdie -- "rnu"/,
    );
    expect(parseArgv(['-p', 'count these', '--json'])).toMatchObject({
      command: { name: 'run' },
      positionals: ['count these'],
      values: { json: true },
    });
    expect(parseArgv(['--yes', '--print', '-'])).toMatchObject({
      command: { name: 'run' },
      positionals: ['-'],
    });
    expect(parseArgv(['-p', '--weird prompt'])).toMatchObject({ positionals: ['--weird prompt'] });
    expect(() => parseArgv(['-p'])).toThrow('-p needs a prompt');
  });
});

// Reported: options put before the command word (`birdie --json sessions list`, `birdie sessions --json list`) were
// refused with messages that did not say the order was the problem ("unknown option", "unexpected argument").
describe('options before the command word', () => {
  it('birdie --json sessions list: says to put the option after the command', () => {
    expect(usageError(['--json', 'sessions', 'list'])).toBe(
      'unknown option "--json". It is an option of `birdie sessions list`: put it after the command (birdie sessions list --json).',
    );
  });

  it('birdie sessions --json list: says to put the subcommand right after the group', () => {
    expect(usageError(['sessions', '--json', 'list'])).toBe(
      '"list" is a command of birdie sessions: put it right after "sessions" (birdie sessions list …), options after it.',
    );
  });
});

// Reported by an exploratory run (stop 68): `birdie run "-hello"` said `unknown option "-e". Did you mean "--enable"?`,
// naming a letter the user never typed as an option, and not how to send such a message.
describe('a message that starts with "-"', () => {
  it('names the word it was read from and says to put -- before it', () => {
    expect(usageError(['run', '-hello'])).toBe(
      'unknown option "-e" (in "-hello"). To send a message that starts with "-", put -- before it: birdie run -- "-hello". Run `birdie run --help`.',
    );
  });

  it('a single unknown short option is said as before', () => {
    expect(usageError(['run', '-z', 'hi'])).toMatch(/^unknown option "-z"\. .*Run `birdie run --help`\.$/);
  });
});
