/** The command-line surface as data: parsing, help and suggestions all read this one table. */

export interface OptionSpec {
  type: 'string' | 'boolean';
  short?: string;
  multiple?: boolean;
  /** Placeholder shown in help, e.g. `ID`. */
  arg?: string;
  help: string;
}

export interface CommandSpec {
  /** `run`, `skills check`, … ; the REPL is the empty string. */
  name: string;
  summary: string;
  usage: string;
  options: Record<string, OptionSpec>;
  /** [min, max] positionals. */
  positionals: [number, number];
  details?: string;
  examples?: string[];
  /**
   * With `--json`, a failure that ends the command is one JSON object on stdout (`render/failure-json.ts`), where a
   * script reads. `own`: the command's `--json` output ends its own way (`run`'s event stream: its `error`, `done`
   * and `result` events once its `session` event is out, nothing before).
   */
  jsonFailure?: 'own';
}

/** A command as written below: no positionals unless it says so; `--help` is added to every command's options. */
type CommandDraft = Omit<CommandSpec, 'positionals'> & { positionals?: [number, number] };

/** An option without a value. */
const flag = (help: string, short?: string): OptionSpec => ({
  type: 'boolean',
  help,
  ...(short ? { short } : {}),
});
/** An option with a value, `arg` its placeholder in help; `repeatable` ones collect every value given. */
const value = (arg: string, help: string, repeatable?: 'repeatable'): OptionSpec => ({
  type: 'string',
  arg,
  help,
  ...(repeatable ? { multiple: true } : {}),
});
/** `--json`, saying what is printed. */
const json = (help = 'print JSON') => ({ json: flag(help) });

const help: Record<string, OptionSpec> = { help: flag('show this help', 'h') };
const runtime: Record<string, OptionSpec> = {
  user: value('ID', 'user id for sessions and memory (default: $USER)'),
  'skills-dir': value('PATH', 'extra skills folder, highest precedence (repeatable)', 'repeatable'),
  'agents-dir': value(
    'PATH',
    'extra agents folder (NAME.md files), highest precedence (repeatable)',
    'repeatable',
  ),
  config: value('FILE', 'config file, above LLM_PROVIDER_CONFIG, env and ~/.birdie/config.json'),
  cwd: value('DIR', 'working directory for tools (default: the current one)'),
  'trust-workspace': flag(
    "load this folder's project skills and agents (.birdie/, .agents/) for this run only, without asking",
  ),
};
const user = { user: runtime.user! };
const sandbox = flag(
  "run every bash:, python: and node: tool in the sandbox (bubblewrap; birdie's own node: tools stay in-process): " +
    'writes only in the working directory, no network',
);
const session: Record<string, OptionSpec> = {
  sandbox,
  'session-id': value('ID', 'continue this session instead of starting a new one'),
  agent: value(
    'NAME',
    "the agent that answers (`birdie agents list`); default: the session's last one, else none",
  ),
  wait: value(
    'SECONDS',
    'wait this long for a session another process is using (default: 5 in the REPL, 0 in run)',
  ),
  approval: value('MODE', 'ask | always | never: when tools need your approval (default: ask)'),
  enable: value('SKILL', 'enable this skill for the session, saved with it (repeatable)', 'repeatable'),
  disable: value('SKILL', 'disable this skill for the session, saved with it (repeatable)', 'repeatable'),
};
const approval = { approval: session.approval! };
/** `--enable`/`--disable` with their own words. */
const skillSwitches = (enable: string, disable: string) => ({
  enable: { ...session.enable!, help: enable },
  disable: { ...session.disable!, help: disable },
});

const DRAFTS: CommandDraft[] = [
  {
    name: '',
    summary: 'start the interactive session (REPL), with a first message if one is given',
    usage: 'birdie [options] ["<prompt>"]   ·   birdie -p "<prompt>" (= birdie run)',
    options: {
      ...runtime,
      ...session,
      continue: flag('continue the session you used last', 'c'),
      version: flag('print the version', 'v'),
    },
    positionals: [0, 1],
    details:
      'Type /help inside the session for its commands. Needs a terminal; use `birdie run` (or `birdie -p`) in ' +
      'scripts. A prompt that is also a command name is sent with `birdie -- "<prompt>"`.',
  },
  {
    name: 'resume',
    summary: 'pick one of your sessions (used last first, type to filter) and continue it',
    usage: 'birdie resume [options]',
    options: { ...runtime, ...session },
    details:
      'Needs a terminal. `birdie --continue` (-c) continues the session used last (its newest turn) without asking.',
  },
  {
    name: 'run',
    summary: 'one turn without a terminal: prompt in, answer out',
    usage: 'birdie run [options] "<prompt>" | -',
    options: {
      ...runtime,
      ...session,
      ...json('write one JSON event per line instead of text'),
      yes: flag('approve every tool call that asks for approval', 'y'),
      continue: flag('continue the session you used last (its newest turn or rename)', 'c'),
    },
    jsonFailure: 'own',
    positionals: [1, 1],
    details:
      'Reads the prompt from stdin when it is `-`. `birdie -p "<prompt>" [options]` is the same command. Bundled skills are off until enabled: --enable/--disable change ' +
      "the session's grants before the turn, and the session keeps them. Project skills of a folder you have not " +
      'trusted (`birdie trust`) are skipped. Exit codes: 0 ok, 1 run error, 2 usage or config, 3 the session is in ' +
      'use by another process (retry, or --wait).',
    examples: [
      'birdie run --enable filesystem "what is in this folder?"',
      'echo "summarise README.md" | birdie run - --json',
      'birdie run --session-id ID --disable shell "carry on"',
      'birdie run -c "and the tests?"',
    ],
  },
  {
    name: 'acp',
    summary: 'serve the Agent Client Protocol on stdin/stdout, for editors (Zed, JetBrains, Neovim)',
    usage: 'birdie acp [options]',
    options: {
      ...runtime,
      cwd: {
        ...runtime.cwd!,
        help: "folder whose project skills load (default: the current one); tools work in each session's folder",
      },
      ...approval,
      ...skillSwitches(
        'enable this skill for every new session (repeatable)',
        'disable this skill for every new session (repeatable)',
      ),
      wait: { ...session.wait!, help: 'wait this long for a session another process is using (default: 5)' },
      agent: value('NAME', 'run this agent (an agent file) instead of the default one'),
    },
    details:
      'An editor starts it as its agent and talks ACP (JSON-RPC) over stdio: stdout carries the protocol only, ' +
      'everything else goes to stderr. Sessions are birdie sessions (`birdie sessions list`); the editor can load ' +
      "them again. Session modes are the approval modes; approvals become the editor's permission prompts. " +
      "Where the editor offers file access, the filesystem skill reads and writes the editor's buffers.",
    examples: ['birdie acp --enable filesystem --enable todo', 'birdie acp --approval always'],
  },
  {
    name: 'skills list',
    summary: 'list the skills every layer provides',
    usage: 'birdie skills list [options]',
    options: { ...runtime, ...json() },
  },
  {
    name: 'skills check',
    summary: 'validate skill folders and print their diagnostics',
    usage: 'birdie skills check [--strict] [DIR…]',
    options: {
      ...runtime,
      strict: flag('the Agent Skills standard as errors (for skills you publish to other clients)'),
    },
    positionals: [0, Number.POSITIVE_INFINITY],
    details:
      'Without DIR, checks every skills folder birdie would load (with --strict, all but the bundled one). Exit code 1 when any problem is fatal.',
  },
  {
    name: 'skills new',
    summary: 'scaffold a skill in your skills folder (~/.birdie/skills)',
    usage: 'birdie skills new NAME [--dir DIR]',
    options: { dir: value('DIR', 'create it under DIR instead') },
    positionals: [1, 1],
  },
  {
    name: 'agents list',
    summary: 'list the agents every layer provides',
    usage: 'birdie agents list [options]',
    options: { ...runtime, ...json('print JSON, one agent per line') },
  },
  {
    name: 'agents check',
    summary: 'validate agent files and print their diagnostics',
    usage: 'birdie agents check [DIR|FILE…]',
    options: runtime,
    positionals: [0, Number.POSITIVE_INFINITY],
    details:
      'Without DIR, checks every agents folder birdie would load. A DIR is an agents folder (its *.md files) or one ' +
      'agent file; its agents are checked against the skills and agents birdie loads. Exit code 1 when any problem is fatal.',
  },
  {
    name: 'agents new',
    summary: 'scaffold an agent in your agents folder (~/.birdie/agents)',
    usage: 'birdie agents new NAME [--dir DIR]',
    options: { dir: value('DIR', 'create it in DIR instead') },
    positionals: [1, 1],
  },
  {
    name: 'tool',
    summary: "run one skill tool (or a skill's MCP server tool) directly, without a model",
    usage: "birdie tool NAME [--args '{…}']",
    options: {
      ...runtime,
      args: value('JSON', 'the tool arguments as a JSON object (default: {})'),
      timeout: value('SECONDS', "override the tool's timeout"),
      sandbox,
      'session-id': value(
        'ID',
        'run as this session (its data folder, e.g. the todo plan); default: no session',
      ),
    },
    positionals: [1, 1],
    details:
      'A built-in tool (a skill entrypoint `builtin:…`, such as `list_tasks` or `remember`) is not run: only the agent ' +
      'runs those, during a turn (`birdie tasks list` shows your scheduled tasks).',
    examples: [
      'birdie tool read_file --args \'{"path":"README.md"}\'',
      'birdie tool todo_show_plan --session-id 2026-11-21_1',
      'birdie tool reverse_string --args \'{"text":"abc"}\'   # a tool of a skill\'s MCP server',
    ],
  },
  // `birdie mcp`: birdie's skills as an MCP server, and MCP servers added as skills (mcpserver's block).
  {
    name: 'mcp',
    summary: 'serve the skills as an MCP server (stdio, or streamable HTTP with --http) for any MCP client',
    usage: 'birdie mcp [--http PORT] [options]',
    options: {
      ...runtime,
      ...approval,
      sandbox,
      ...skillSwitches(
        'enable this skill for the MCP session (repeatable; not with --http)',
        'disable this skill for the MCP session (repeatable; not with --http)',
      ),
      http: value(
        'PORT',
        'serve streamable HTTP at /mcp on this port (0 picks a free one) instead of stdio, with the tokens and policy of `birdie serve`',
      ),
      host: value('HOST', 'with --http: address to listen on (default: 127.0.0.1)'),
      workspaces: value(
        'DIR',
        "with --http: the folder of the users' workspaces (default: serve.workspaces, else ~/.birdie/workspaces)",
      ),
      'rate-limit': value(
        'N',
        'with --http: requests per minute per token (default: 600; 0 turns the limit off)',
      ),
    },
    details:
      'Tools are the skill tools a session may use, with their JSON schemas; a call that needs approval is asked ' +
      'about through elicitation (a client that cannot elicit gets a refusal). Knowledge skills are skill://NAME ' +
      'resources (their reference files skill://NAME/FILE), agents are prompts. Each connection is a birdie session ' +
      'and each call a run (`birdie logs`). Over stdio, stdout carries the protocol only; policy, grants, trust, ' +
      'approval rules and the sandbox apply as in the REPL. With --http, exactly as `birdie serve`: bearer tokens ' +
      "(`birdie tokens create`), the operator's policy, a workspace per user, bash:, python: and node: tools " +
      "(but birdie's own node: tools) sandboxed.",
    examples: ['birdie mcp', 'birdie mcp --enable filesystem --approval always', 'birdie mcp --http 8788'],
  },
  {
    name: 'mcp add',
    summary: 'add an MCP server as a skill of your own (~/.birdie/skills/NAME)',
    usage: 'birdie mcp add NAME (--url URL | -- COMMAND [ARGS…])',
    options: {
      url: value('URL', 'a streamable HTTP (or SSE) server instead of a command'),
      description: value('TEXT', "the skill's description (default: the server's name)"),
    },
    positionals: [1, Number.POSITIVE_INFINITY],
    details:
      'Writes a skill folder whose SKILL.md has the mcp_server frontmatter, so trust, policy and approvals apply ' +
      'to the server as to any skill. `birdie mcp remove` removes only folders written here.',
    examples: [
      'birdie mcp add graph-memory -- npx -y @modelcontextprotocol/server-memory',
      'birdie mcp add docs --url https://example.com/mcp',
    ],
  },
  {
    name: 'mcp list',
    summary: 'list the MCP servers of your skills (those `birdie mcp add` wrote, and others)',
    usage: 'birdie mcp list [--json]',
    options: { ...runtime, ...json('print JSON, one server per line') },
  },
  {
    name: 'mcp remove',
    summary: 'remove an MCP server that `birdie mcp add` added',
    usage: 'birdie mcp remove NAME',
    options: {},
    positionals: [1, 1],
  },
  {
    name: 'sessions list',
    summary: 'list your sessions, the one used last first',
    usage: 'birdie sessions list [--user ID] [--json]',
    options: { ...user, ...json() },
  },
  {
    name: 'sessions show',
    summary: "print a session's conversation",
    usage: 'birdie sessions show ID [--user ID] [--full] [--json]',
    options: {
      ...user,
      full: flag(
        'every message, with the compaction boundaries (default: the latest summary instead of what it covers)',
      ),
      ...json(),
    },
    positionals: [1, 1],
  },
  {
    name: 'sessions rename',
    summary: "set a session's title (shown in lists and the resume picker)",
    usage: 'birdie sessions rename ID TITLE [--user ID]',
    options: { ...user },
    positionals: [2, 50],
  },
  {
    name: 'sessions delete',
    summary: 'delete a session, its history, its grants and its data folder',
    usage: 'birdie sessions delete ID [--user ID]',
    options: { ...user },
    positionals: [1, 1],
  },
  {
    name: 'sessions repair',
    summary:
      'continue a damaged session from its last good step (damaged records are set aside, not deleted)',
    usage: 'birdie sessions repair ID [--user ID] [--json]',
    options: { ...user, ...json() },
    positionals: [1, 1],
    details:
      '`birdie doctor` finds damaged sessions; `birdie sessions show ID` shows a damaged one up to the damage.',
  },
  {
    name: 'trust',
    summary:
      "trust a folder's project skills and agents (.birdie/, .agents/), list or revoke trusted folders",
    usage: 'birdie trust [DIR] | --list | --revoke DIR',
    options: {
      list: flag('list the folders you answered about'),
      revoke: value('DIR', 'forget the answer about DIR (its skills stop loading)'),
      ...json('print JSON (with --list)'),
    },
    positionals: [0, 1],
    details:
      "Skills and agents found in a project folder are someone else's until you trust that folder: until then birdie loads " +
      'none of them (no tool runs, no MCP server starts, nothing enters the prompt). Trusting records the folder and a ' +
      "digest of what they declare (tools, entrypoints, MCP commands; agents' models, skills, tools, pre-approved tools, " +
      'subagents and handoffs); when that changes, birdie asks again.',
    examples: [
      'birdie trust',
      'birdie trust ~/src/project',
      'birdie trust --list',
      'birdie trust --revoke .',
    ],
  },
  {
    name: 'config',
    summary:
      'your defaults: list, get, set or unset a setting (approval, skills.enable, permissions.allow, …)',
    usage:
      'birdie config [list|get KEY|set KEY VALUE|unset KEY|add KEY VALUE|remove KEY VALUE] [--config FILE] [--json]',
    options: {
      config: value('FILE', 'the config file to read and write (default: ~/.birdie/config.json)'),
      ...json(),
    },
    positionals: [0, 3],
    details:
      'Settings live in the settings section of the config file; set checks a value as a start would and never writes ' +
      'one it would refuse. Lists are comma-separated (skills.enable shell,filesystem). add and remove change one ' +
      'entry of a list, taken whole: approval rules (permissions.allow, permissions.ask, permissions.deny) hold blanks ' +
      'and commas, and are checked as patterns. list shows where each value comes from. A value in the file that a ' +
      'start would refuse does not stop set, unset, add or remove (only a new bad value does): set or unset its key ' +
      'to repair it; list and get show it marked invalid, say where it is, and exit 2.',
    examples: [
      'birdie config set approval never',
      'birdie config set skills.enable shell,filesystem',
      "birdie config add permissions.allow 'run_bash(npm test *)'",
      "birdie config remove permissions.allow 'run_bash(npm test *)'",
      'birdie config list',
    ],
  },
  {
    name: 'setup',
    summary:
      'choose the model provider again: vendor, model and key (the key is checked with the vendor first)',
    usage: 'birdie setup',
    options: {},
    details:
      'Writes the provider section of ~/.birdie/config.json (mode 0600) and keeps its settings section. A key the ' +
      'vendor refuses is never saved; one that cannot be checked (no network) is saved with a warning. Needs a terminal.',
  },
  {
    name: 'doctor',
    summary: 'check the store: SQLite integrity and every stored record, and say what to do',
    usage: 'birdie doctor [--json]',
    options: { ...json() },
    details: 'Exit code 1 when anything is damaged; `birdie sessions repair ID` continues a damaged session.',
  },
  {
    name: 'logs',
    summary: 'show the run log',
    usage:
      'birdie logs [--session ID] [--user ID] [--agent NAME] [--status S] [--since T] [-n N] [--follow] [--json]',
    options: {
      session: value('ID', 'only runs of this session'),
      ...user,
      agent: value('NAME', 'only runs of this agent'),
      status: value(
        'S',
        'only runs with this status: running, ok, error, interrupted, rejected, cancelled, died',
      ),
      since: value('T', 'only runs started since T: an ISO date/time, or a duration ago (30m, 2h, 1d)'),
      n: { ...value('N', 'how many runs (default 20)'), short: 'n' },
      follow: flag('keep printing runs as they start and end (Ctrl+C stops)', 'f'),
      ...json('print JSON, one run per line'),
    },
    examples: ['birdie logs --agent digest --status error --since 1d', 'birdie logs --follow --json'],
  },
  {
    name: 'logs show',
    summary: 'one run: its messages, tool calls and answer',
    usage: 'birdie logs show RUN_ID [--user ID] [--json]',
    options: { ...user, ...json() },
    positionals: [1, 1],
    details:
      "The messages are read from the session's checkpoints (the log references them, it does not copy them).",
  },
  {
    name: 'start',
    summary:
      'run agents on their triggers (schedule, every, watch) and your scheduled tasks, in the foreground',
    usage: 'birdie start [--agents-dir PATH]… [--json] [--grace SECONDS] | --once AGENT',
    options: {
      ...runtime,
      ...json(
        'print what was found as JSON records on stdout (`scheduled`, `held`), and log one JSON object per line on stderr',
      ),
      grace: value(
        'SECONDS',
        'on SIGTERM/SIGINT, how long active runs may finish before they are cancelled (default 30)',
      ),
      once: value('AGENT', "run this agent's trigger once, now, and exit (for testing)"),
    },
    details:
      'Prints the agents with triggers and their next run, then logs one line per run start and end on stderr. Reloads ' +
      'when agent files change. Several `birdie start` on one database never run the same due time twice. Nobody ' +
      "approves: a call that needs approval runs only if the agent's `approve` list allows it, else it is " +
      'refused and the refusal is logged: a tool by its name, a raw shell command only by a command pattern ' +
      '(`run_bash(git status)`, `run_bash(npm test *)`; a bare `run_bash` never applies). The refusal says what to add. SIGTERM or SIGINT: active runs get --grace seconds, then are cancelled; ' +
      'exit code 0.',
    examples: ['birdie start', 'birdie start --agents-dir ./agents --json', 'birdie start --once digest'],
  },
  {
    name: 'tasks list',
    summary: 'list your scheduled tasks (run by `birdie start`)',
    usage: 'birdie tasks list [--all] [--user ID] [--json]',
    options: {
      ...user,
      all: flag('also done and cancelled tasks'),
      ...json('print JSON, one task per line'),
    },
    details:
      'A task `birdie serve` holds shows as `held` (in JSON: its `held` field), and why is said on stderr: its user ' +
      'had every API token revoked and the server refused its firing; it is not fired again until they have a token ' +
      'again (`birdie tokens create --user ID`), or until it is cancelled. A task the runner holds for a reason of ' +
      'its own (its agent has no file, `serve.agents` refuses it, or its skills are off) shows as `active`: only the ' +
      'runner knows its agent files and settings, and it says why in its log.',
  },
  {
    name: 'tasks cancel',
    summary: 'cancel a scheduled task',
    usage: 'birdie tasks cancel ID [--user ID]',
    options: { ...user },
    positionals: [1, 1],
  },
  {
    name: 'serve',
    summary: 'serve the agent over HTTP (sessions, turns as server-sent events, approvals) for a team',
    usage: 'birdie serve [--host 127.0.0.1] [--port 8787] [options]',
    options: {
      host: value('HOST', 'address to listen on (default: 127.0.0.1, this machine only)'),
      port: value('PORT', 'port to listen on (default: 8787; 0 picks a free one)'),
      ...runtime,
      ...approval,
      sandbox,
      workspaces: value(
        'DIR',
        "the folder of the users' workspaces, the same on every worker (default: serve.workspaces, else ~/.birdie/workspaces)",
      ),
      'rate-limit': value(
        'N',
        'requests per minute per token, counted by this worker (default: 600; 0 turns the limit off); per-user turn limits across workers are the serve.limits.* settings',
      ),
      'max-body': value('BYTES', 'largest request body (default: 1048576)'),
      'cors-origin': value(
        'ORIGIN',
        'let a browser page of ORIGIN call the API (repeatable; default: no CORS)',
        'repeatable',
      ),
      grace: value(
        'SECONDS',
        'on SIGTERM/SIGINT, how long running turns may finish before they are cancelled (default: 10)',
      ),
      'metrics-port': value(
        'PORT',
        'serve GET /metrics (Prometheus) on a listener of its own, without tokens (0 picks a free port; default: off)',
      ),
      'metrics-host': value(
        'HOST',
        'address of the metrics listener (default: 127.0.0.1, this machine only)',
      ),
      channels: flag('also run the chat channels of the settings (as `birdie channels`), on the same store'),
      'log-format': value(
        'text|json',
        'the log on stderr: a line per request and per turn, with its request id (default: text; json: one object per line)',
      ),
    },
    details:
      'Every request but /v1/health, /v1/ready and /v1/openapi.json needs `Authorization: Bearer TOKEN` from `birdie tokens ' +
      'create --user NAME`. Workers keep no session state: with BIRDIE_DATABASE_URL (or database_url in the config) ' +
      'several `birdie serve` processes on several machines share one PostgreSQL database, and any of them continues ' +
      "any session. A token made with `--admin` may also list and revoke tokens and read every user's runs. " +
      "The settings serve.limits.concurrent_turns and serve.limits.turns_per_minute limit each user's turns on " +
      'all workers together (429). ' +
      "Each user's tools run in their own workspace under --workspaces (the same shared folder on every " +
      "worker), every bash:, python: and node: tool (but birdie's own node: tools) always in the bubblewrap sandbox. " +
      'The API is described at /v1/openapi.json.',
    examples: [
      'birdie tokens create --user alice',
      'BIRDIE_DATABASE_URL=postgres://birdie@db/birdie birdie serve --host 0.0.0.0 --port 8787',
    ],
  },
  // `birdie channels` (issue 37): chat channels on the serve runtime.
  {
    name: 'channels',
    summary: 'talk to the agent from Telegram (the channels settings), in the foreground',
    usage: 'birdie channels [options]',
    options: { ...runtime, ...approval, sandbox },
    details:
      'Starts every chat channel configured in the settings (channels.telegram: token, api_url, allow, mode, ' +
      'webhook_secret, …; secrets also from BIRDIE_TELEGRAM_TOKEN and BIRDIE_TELEGRAM_WEBHOOK_SECRET) on a runtime ' +
      "opened as `birdie serve` opens one: the operator's policy, a workspace per user, bash:, python: and node: " +
      "tools (but birdie's own node: tools) sandboxed. " +
      'A chat is a session of the birdie user its allow list names; anyone else gets one refusal. Approvals are ' +
      'buttons. `birdie serve --channels` runs them inside the server, on the same store. SIGTERM/SIGINT stops.',
    examples: ['BIRDIE_TELEGRAM_TOKEN=123:abc birdie channels', 'birdie serve --channels'],
  },
  {
    name: 'tokens create',
    summary: 'make an API token for a user of `birdie serve` (printed once; only its hash is kept)',
    usage: 'birdie tokens create --user NAME [--name LABEL] [--admin] [--json]',
    options: {
      user: value('NAME', 'the user the token acts as (required)'),
      name: value('LABEL', 'a label to tell tokens apart'),
      admin: flag(
        "an operator's token: it may also list and revoke tokens and read every user's runs through the API",
      ),
      ...json(),
    },
  },
  {
    name: 'tokens list',
    summary: 'list the API tokens not revoked, with their role (never the tokens themselves)',
    usage: 'birdie tokens list [--user NAME] [--revoked] [--json]',
    options: {
      user: value('NAME', "only this user's tokens"),
      revoked: flag('list the revoked tokens instead, with when each was revoked (revokedAt)'),
      ...json(),
    },
  },
  {
    name: 'tokens revoke',
    summary:
      "revoke an API token: requests with it fail from now on; once all of a user's are revoked, birdie serve runs none of their tasks",
    usage: 'birdie tokens revoke ID',
    options: {},
    positionals: [1, 1],
  },
  {
    name: 'db status',
    summary: 'which schema migrations the database has, and which are pending',
    usage: 'birdie db status [--json]',
    options: { ...json() },
    details:
      'The database is PostgreSQL when BIRDIE_DATABASE_URL (or database_url in the config) names one, else the SQLite ' +
      'file in BIRDIE_HOME. Exit code 1 when migrations are pending.',
  },
  {
    name: 'db migrate',
    summary: 'apply pending schema migrations (birdie also applies them when it opens the database)',
    usage: 'birdie db migrate [--json]',
    options: { ...json() },
  },
];

export const COMMANDS: CommandSpec[] = DRAFTS.map((draft) => ({
  positionals: [0, 0],
  ...draft,
  options: { ...draft.options, ...help },
}));

/** Groups whose first positional is a sub-command, and the sub-command used when none is given. */
export const GROUPS: Record<string, string> = {
  skills: 'list',
  agents: 'list',
  sessions: 'list',
  tasks: 'list',
  tokens: 'list',
  db: 'status',
};

export function findCommand(name: string): CommandSpec | undefined {
  return COMMANDS.find((c) => c.name === name);
}
