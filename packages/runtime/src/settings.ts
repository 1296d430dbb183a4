import type { ApprovalMode } from '@birdie/graph';

/** Every approval mode, for `--approval`, `/approval` and the `approval` setting. */
export const APPROVAL_MODES: readonly ApprovalMode[] = ['ask', 'always', 'never'];

/** The `settings` section of `~/.birdie/config.json` (and of a `--config` file), defaults filled in. */
export interface Settings {
  /** The approval mode when `--approval` is not given. */
  approval: ApprovalMode;
  /** Skills enabled or disabled in a new session, as if given with `--enable` / `--disable`. */
  skills: { enable: string[]; disable: string[] };
  /** A PostgreSQL server to keep everything in instead of the SQLite file (`BIRDIE_DATABASE_URL` overrides it). */
  databaseUrl?: string;
  /** `always`: every bash:/python: tool runs under the sandbox (as with `--sandbox`); `declared`: those that ask. */
  sandbox: SandboxSetting;
  /** Which program runs container: tools; `auto` takes podman, else docker. */
  container_runtime: ContainerRuntimeSetting;
  /** The model's input limit in tokens, instead of its profile's (compaction works against it). */
  context_window?: number;
  /** A safety cap on the messages sent per model call, whatever the token budget allows. */
  context_messages?: number;
  /** Tools bound per model call before `find_tools` searches the rest (default 40; 0: bind every tool). */
  tool_budget?: number;
  /** Characters of tool definitions bound per model call before `find_tools` searches the rest (default 12000). */
  tool_budget_chars?: number;
  /** How a session gets its title after the first exchange: the first prompt on one line, or a short model-made one. */
  titles: 'prompt' | 'model';
  /**
   * The memory files read into every prompt, by name, in this order: `~/.birdie/NAME` and, once the folder is trusted,
   * each project folder's from the repository root down (`AGENTS.md`; people add `CLAUDE.md`, `MEMORY.md`, …).
   */
  memory_files: string[];
  /**
   * Networks the bundled `web_fetch` may reach although they are not public (loopback, private, link-local): IP
   * addresses or CIDRs (`10.0.0.0/8`, `fd00::/8`). Empty: public addresses only. Passed to tools as
   * `BIRDIE_WEB_FETCH_ALLOW`; a value of that variable in birdie's own environment wins.
   */
  web_fetch_allow: string[];
  /** How much of each tool result the REPL shows (as `/tool output`). */
  tool_output: 'full' | 'short' | 'off';
  /**
   * The model new sessions use, named as `/model` names one (a tier or `vendor:model`); `LLM_MODEL` and
   * `LLM_PROVIDER_CONFIG` still win, being set for one run.
   */
  model?: string;
  /** What `birdie serve` gives its users (API sessions); the operator's, never a token holder's. */
  serve: ServeSettings;
  /**
   * The user's approval rules (`permissions.allow|ask|deny`: patterns such as `run_bash(npm test *)`), every file's
   * together (a rule of any file holds); `permissionRules` keeps which file each came from.
   */
  permissions: Record<PermissionEffect, string[]>;
  permissionRules: PermissionRule[];
  /**
   * The chat channels of `birdie channels` (`@birdie/channels`): each platform's credentials, API address and allow
   * list. Not a `SettingKey`: `birdie config` never lists it (it holds secrets); edit the config file.
   */
  channels: ChannelsSettings;
}

/** Telegram's settings under `channels.telegram`; the token and the webhook secret may come from the environment. */
export interface TelegramChannelSettings {
  token?: string;
  /** The Bot API's address (default `https://api.telegram.org`); a test points it at a local fake. */
  api_url?: string;
  /** Telegram user id → birdie user: who may talk to the bot, and as whom. */
  allow?: Record<string, string>;
  /** `polling` (default) or `webhook` (needs `webhook_secret`). */
  mode?: 'polling' | 'webhook';
  /** Telegram's `secret_token`, checked on every webhook call (`X-Telegram-Bot-Api-Secret-Token`). */
  webhook_secret?: string;
  /** The public HTTPS address Telegram posts to; when set, the webhook is registered there at start. */
  webhook_url?: string;
  /** Where the webhook listens (default 127.0.0.1:8788, path /telegram). */
  webhook_host?: string;
  webhook_port?: number;
}

/** Slack's settings under `channels.slack`; the tokens and the signing secret may come from the environment. */
export interface SlackChannelSettings {
  bot_token?: string;
  /** Socket Mode's app-level token (`xapp-…`). */
  app_token?: string;
  /** The Events API's signing secret. */
  signing_secret?: string;
  /** The Web API's address (default `https://slack.com/api/`); a test points it at a local fake. */
  api_url?: string;
  /** Slack user id → birdie user. */
  allow?: Record<string, string>;
  /** `socket` (default) or `events` (needs `signing_secret`). */
  mode?: 'socket' | 'events';
  events_host?: string;
  events_port?: number;
}

export interface ChannelsSettings {
  telegram?: TelegramChannelSettings;
  slack?: SlackChannelSettings;
  /** Voice messages: an OpenAI-compatible `/audio/transcriptions` (default: the provider's, when its vendor has one). */
  voice?: { base_url?: string; model?: string };
  /** The largest file a chat may send into a session's workspace, in bytes (default 10 MB). */
  max_file_bytes?: number;
}

export const PERMISSION_EFFECTS = ['allow', 'ask', 'deny'] as const;
export type PermissionEffect = (typeof PERMISSION_EFFECTS)[number];

/** One rule of the settings, with the config file that holds it (the rule's source). */
export interface PermissionRule {
  pattern: string;
  effect: PermissionEffect;
  file: string;
}

export interface ServeSettings {
  /**
   * What `birdie serve` lets API sessions use (the operator's policy; a request only narrows it): skill and agent
   * names or patterns (`*`, `web-*`). A skill whose tools run raw commands or in-process `node:` code of a folder
   * other than the bundled one counts only when named exactly, never through a pattern. `skills.disable` always wins.
   */
  skills: string[];
  agents: string[];
  /** The folder holding every user's workspace, mounted by every worker (`--workspaces`); default `~/.birdie/workspaces`. */
  workspaces?: string;
  /** One workspace per `user` (default), or per `session` (deleted with it). */
  workspace: 'user' | 'session';
  /** Whether sandboxed shell and Python tools of API sessions may use the network (when they declare it). */
  sandbox: { network: boolean };
  limits: ServeLimits;
}

/** Per-user limits of `birdie serve` (absent: no limit), counted in the store across every worker. */
export interface ServeLimits {
  /** The bytes a user's workspace may hold before their turns are refused (413). */
  workspace_bytes?: number;
  /** Turns of one user running at once. */
  concurrent_turns?: number;
  /** Turns one user may start in any 60 seconds. */
  turns_per_minute?: number;
  /** `birdie mcp --http`: MCP sessions open at once, all users together (default 100). */
  mcp_sessions?: number;
  /** `birdie mcp --http`: MCP sessions one user may have open at once (default 10). */
  mcp_sessions_per_user?: number;
  /** `birdie mcp --http`: seconds an MCP session may go without a request before it is closed (default 1800). */
  mcp_idle_seconds?: number;
}

export const SANDBOX_SETTINGS = ['declared', 'always'] as const;
export type SandboxSetting = (typeof SANDBOX_SETTINGS)[number];
export const CONTAINER_RUNTIMES = ['auto', 'podman', 'docker'] as const;
export type ContainerRuntimeSetting = (typeof CONTAINER_RUNTIMES)[number];

/** A setting's dotted name, as used in `sources` and in messages. */
export type SettingKey =
  | 'approval'
  | 'skills.enable'
  | 'skills.disable'
  | 'serve.skills'
  | 'serve.agents'
  | 'database_url'
  | 'sandbox'
  | 'container_runtime'
  | 'context_window'
  | 'context_messages'
  | 'tool_budget'
  | 'tool_budget_chars'
  | 'titles'
  | 'memory_files'
  | 'web_fetch_allow'
  | 'tool_output'
  | 'model'
  | 'serve.limits.concurrent_turns'
  | 'serve.limits.turns_per_minute'
  | 'serve.workspaces'
  | 'serve.workspace'
  | 'serve.sandbox.network'
  | 'serve.limits.workspace_bytes'
  | 'serve.limits.mcp_sessions'
  | 'serve.limits.mcp_sessions_per_user'
  | 'serve.limits.mcp_idle_seconds'
  | 'permissions.allow'
  | 'permissions.ask'
  | 'permissions.deny';
export const SETTING_KEYS: readonly SettingKey[] = [
  'approval',
  'skills.enable',
  'skills.disable',
  'serve.skills',
  'serve.agents',
  'database_url',
  'sandbox',
  'container_runtime',
  'context_window',
  'context_messages',
  'tool_budget',
  'tool_budget_chars',
  'titles',
  'memory_files',
  'web_fetch_allow',
  'tool_output',
  'model',
  'serve.limits.concurrent_turns',
  'serve.limits.turns_per_minute',
  'serve.workspaces',
  'serve.workspace',
  'serve.sandbox.network',
  'serve.limits.workspace_bytes',
  'serve.limits.mcp_sessions',
  'serve.limits.mcp_sessions_per_user',
  'serve.limits.mcp_idle_seconds',
  'permissions.allow',
  'permissions.ask',
  'permissions.deny',
];

export function defaultSettings(): Settings {
  return {
    approval: 'ask',
    skills: { enable: [], disable: [] },
    sandbox: 'declared',
    container_runtime: 'auto',
    titles: 'prompt',
    memory_files: ['AGENTS.md'],
    web_fetch_allow: [],
    tool_output: 'short',
    serve: { skills: ['*'], agents: ['*'], workspace: 'user', sandbox: { network: false }, limits: {} },
    permissions: { allow: [], ask: [], deny: [] },
    permissionRules: [],
    channels: {},
  };
}
