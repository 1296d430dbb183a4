import type { ConfigFile } from '@birdie/providers';
import { MAX_ADMISSION_LIMIT } from '@birdie/store/limits';
import { z } from 'zod';
import { UsageError } from './errors.js';
import { isIpNetwork } from './ip-network.js';
import { isModelSpec, unknownVendorOf, VENDOR_NAMES } from './model-spec.js';
import {
  APPROVAL_MODES,
  type ChannelsSettings,
  CONTAINER_RUNTIMES,
  defaultSettings,
  PERMISSION_EFFECTS,
  SANDBOX_SETTINGS,
  SETTING_KEYS,
  type SettingKey,
  type Settings,
} from './settings.js';

// Names end up in session grants; the registry refuses the same things (empty, control characters, > 256).
const skillName = z
  .string({ error: 'must be a skill name (a string)' })
  .max(256, { error: 'must be at most 256 characters' })
  .refine((name) => name.trim() !== '' && !/[\u0000-\u001f\u007f]/.test(name), {
    error: 'must be a skill name (not empty, no control characters)',
  });
const skillList = z.array(skillName, { error: 'must be a list of skill names' });
const patternList = (what: string) =>
  z.array(skillName, { error: `must be a list of ${what} names or patterns (such as "*")` });

// Approval patterns hold blanks and commas (`run_bash(git log *)`, `write_file(path=a,b)`): whole strings, checked as
// patterns when the rules are built (`permission-rules.ts`), where the grammar's module is loaded anyway.
const rulePattern = z
  .string({ error: 'must be an approval pattern (a string such as "run_bash(npm test *)")' })
  .refine((text) => text.trim() !== '' && !/[\u0000-\u001f\u007f]/.test(text), {
    error: 'must be an approval pattern (not empty, no control characters)',
  });
const ruleList = z.array(rulePattern, { error: 'must be a list of approval patterns' });

// A memory file is looked for by name in each project folder: a plain file name, never a path (the registry's rule,
// `memoryFileNameProblem`, which the trust digest relies on).
const memoryFileName = z
  .string({ error: 'must be a list of file names' })
  .refine((name) => name.trim() !== '' && name === name.trim(), { error: 'must not be empty or padded' })
  .refine((name) => name !== '.' && name !== '..' && !/[/\\\u0000-\u001f\u007f]/.test(name), {
    error: 'must be plain file names (no folders, no `..`)',
  });

const perUserLimit = (what: string) =>
  z
    .number({ error: `must be a number of ${what}` })
    .int({ error: `must be a whole number of ${what}` })
    .min(1, { error: `must be at least 1 (unset it for no limit)` });

/**
 * The most turns a minute a user may be allowed: each is a place the store keeps for the minute, and the store's
 * admissions count at most `MAX_ADMISSION_LIMIT`. A larger value would pass here and then refuse every turn; no
 * limit at all is the setting left unset. From `@birdie/store/limits`, which loads nothing else of the store.
 */
const MAX_TURNS_PER_MINUTE = MAX_ADMISSION_LIMIT;

const secret = z
  .string({ error: 'must be a string (better: set it in the environment)' })
  .min(1, { error: 'must not be empty' });
const httpUrl = z
  .string({ error: 'must be an http:// or https:// address' })
  .regex(/^https?:\/\/\S+$/, { error: 'must be an http:// or https:// address' });
const birdieUser = z
  .string({ error: 'must be a birdie user name' })
  .regex(/^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$/, {
    error: 'must be a birdie user name (letters, digits, . _ -)',
  });
const allowMap = (what: string) =>
  z.record(
    z.string().regex(/^[A-Za-z0-9_-]{1,64}$/, { error: `keys must be ${what} user ids` }),
    birdieUser,
    {
      error: `must map ${what} user ids to birdie users`,
    },
  );
const port = z.number({ error: 'must be a port number' }).int().min(0).max(65535);

// `birdie channels`: each platform's credentials, address and allow list (see `ChannelsSettings`).
const channelsSchema = z
  .strictObject(
    {
      telegram: z
        .strictObject(
          {
            token: secret,
            api_url: httpUrl,
            allow: allowMap('Telegram'),
            mode: z.enum(['polling', 'webhook'], { error: 'must be polling or webhook' }),
            webhook_secret: secret.regex(/^[A-Za-z0-9_-]{1,256}$/, {
              error: "must be 1-256 of A-Z, a-z, 0-9, _ and - (Telegram's rule for secret_token)",
            }),
            webhook_url: httpUrl,
            webhook_host: z.string({ error: 'must be a host name or address' }).min(1),
            webhook_port: port,
          },
          { error: 'must be an object (token, api_url, allow, mode, webhook_secret, webhook_url, …)' },
        )
        .partial(),
      slack: z
        .strictObject(
          {
            bot_token: secret,
            app_token: secret,
            signing_secret: secret,
            api_url: httpUrl,
            allow: allowMap('Slack'),
            mode: z.enum(['socket', 'events'], { error: 'must be socket or events' }),
            events_host: z.string({ error: 'must be a host name or address' }).min(1),
            events_port: port,
          },
          { error: 'must be an object (bot_token, app_token, signing_secret, api_url, allow, mode, …)' },
        )
        .partial(),
      voice: z
        .strictObject(
          { base_url: httpUrl, model: z.string({ error: 'must be a model name' }).min(1) },
          { error: 'must be an object (base_url, model)' },
        )
        .partial(),
      max_file_bytes: z
        .number({ error: 'must be a number of bytes' })
        .int({ error: 'must be a whole number of bytes' })
        .min(1, { error: 'must be at least 1' }),
    },
    { error: 'must be an object (telegram, slack, voice, max_file_bytes)' },
  )
  .partial();

/** The settings section: every key optional, unknown keys refused. Add new settings here and in `Settings`. */
const settingsSchema = z
  .strictObject({
    approval: z.enum(APPROVAL_MODES as [string, ...string[]], { error: 'must be ask, always or never' }),
    database_url: z
      .string({ error: 'must be a postgres:// connection string' })
      .regex(/^postgres(ql)?:\/\//, { error: 'must be a postgres:// (or postgresql://) connection string' }),
    skills: z.strictObject(
      { enable: skillList.optional(), disable: skillList.optional() },
      { error: 'must be an object with "enable" and "disable" lists' },
    ),
    sandbox: z.enum(SANDBOX_SETTINGS, { error: 'must be declared or always' }),
    container_runtime: z.enum(CONTAINER_RUNTIMES, { error: 'must be auto, podman or docker' }),
    context_window: z
      .number({ error: 'must be a number of tokens' })
      .int({ error: 'must be a whole number of tokens' })
      .min(1000, { error: 'must be at least 1000 tokens' }),
    context_messages: z
      .number({ error: 'must be a number of messages' })
      .int({ error: 'must be a whole number of messages' })
      .min(2, { error: 'must be at least 2 messages' }),
    tool_budget: z
      .number({ error: 'must be a number of tools' })
      .int({ error: 'must be a whole number of tools' })
      .min(0, { error: 'must be 0 or more' }),
    // Each check names its rule: the number's own message would be said of every failure (999 "is not a number").
    tool_budget_chars: z
      .number({ error: 'must be a number of characters' })
      .int({ error: 'must be a whole number of characters' })
      .min(1000, { error: 'must be at least 1000 characters' }),
    titles: z.enum(['prompt', 'model'], { error: 'must be prompt or model' }),
    tool_output: z.enum(['full', 'short', 'off'], { error: 'must be full, short or off' }),
    memory_files: z
      .array(memoryFileName, { error: 'must be a list of file names (such as ["AGENTS.md", "CLAUDE.md"])' })
      .max(16, { error: 'must name at most 16 files' }),
    web_fetch_allow: z
      .array(
        z.string().refine(isIpNetwork, {
          error: 'must be IP addresses or CIDRs (such as 10.0.0.0/8)',
        }),
        { error: 'must be a list of IP addresses or CIDRs (such as ["10.0.0.0/8", "fd00::/8"])' },
      )
      .max(64, { error: 'must name at most 64 networks' }),
    model: z
      .string({ error: 'must be a model name' })
      .refine(isModelSpec, {
        error: 'must be a tier (fast, default, strong) or vendor:model (e.g. openai:gpt-4o-mini)',
      })
      // Checked here, where the file's line is known: every run would otherwise stop at the vendor lookup.
      .refine((spec) => unknownVendorOf(spec) === undefined, {
        error: (issue) =>
          `names the vendor "${unknownVendorOf(String(issue.input))}", which birdie does not know (${VENDOR_NAMES.join(', ')})`,
      }),
    permissions: z
      .strictObject(
        { allow: ruleList, ask: ruleList, deny: ruleList },
        { error: 'must be an object with "allow", "ask" and "deny" lists' },
      )
      .partial(),
    serve: z
      .strictObject(
        {
          skills: patternList('skill'),
          agents: patternList('agent'),
          workspaces: z
            .string({ error: 'must be a folder (an absolute path)' })
            .refine((path) => path.startsWith('/'), { error: 'must be an absolute path' }),
          workspace: z.enum(['user', 'session'], { error: 'must be user or session' }),
          sandbox: z
            .strictObject(
              { network: z.boolean({ error: 'must be true or false' }) },
              { error: 'must be an object with "network"' },
            )
            .partial(),
          limits: z
            .strictObject(
              {
                concurrent_turns: perUserLimit('turns'),
                turns_per_minute: perUserLimit('turns').max(MAX_TURNS_PER_MINUTE, {
                  error: `must be at most ${MAX_TURNS_PER_MINUTE} (unset it for no limit)`,
                }),
                mcp_sessions: perUserLimit('sessions'),
                mcp_sessions_per_user: perUserLimit('sessions'),
                mcp_idle_seconds: perUserLimit('seconds'),
                workspace_bytes: z
                  .number({ error: 'must be a number of bytes' })
                  .int({ error: 'must be a whole number of bytes' })
                  .min(0, { error: 'must be at least 0' }),
              },
              {
                error:
                  'must be an object (concurrent_turns, turns_per_minute, workspace_bytes, mcp_sessions, mcp_sessions_per_user, mcp_idle_seconds)',
              },
            )
            .partial(),
        },
        { error: 'must be an object (skills, agents, workspaces, workspace, sandbox, limits)' },
      )
      .partial(),
    channels: channelsSchema,
  })
  .partial();

type SettingsLayer = z.infer<typeof settingsSchema>;

/** Overlays one file's `channels` over the lower files': each platform's fields one by one (an allow list whole). */
function mergeChannels(lower: ChannelsSettings, layer: ChannelsSettings): ChannelsSettings {
  const merged: ChannelsSettings = { ...lower };
  if (layer.telegram) merged.telegram = { ...lower.telegram, ...layer.telegram };
  if (layer.slack) merged.slack = { ...lower.slack, ...layer.slack };
  if (layer.voice) merged.voice = { ...lower.voice, ...layer.voice };
  if (layer.max_file_bytes !== undefined) merged.max_file_bytes = layer.max_file_bytes;
  return merged;
}

/** What is wrong with a `settings` section (the first problem, at its path inside the section), if anything. */
export function settingsProblem(
  section: unknown,
): { path: Array<string | number>; reason: string } | { layer: SettingsLayer } {
  const result = settingsSchema.safeParse(section);
  if (result.success) {
    const { enable = [], disable = [] } = result.data.skills ?? {};
    const both = enable.find((name) => disable.some((other) => other.toLowerCase() === name.toLowerCase()));
    if (both === undefined) return { layer: result.data };
    const index = disable.findIndex((other) => other.toLowerCase() === both.toLowerCase());
    return {
      path: ['skills', 'disable', index],
      reason: `skill "${both}" is in both skills.enable and skills.disable`,
    };
  }
  const issue = result.error.issues[0]!;
  const path = issue.path.map((part) => (typeof part === 'number' ? part : String(part)));
  if (issue.code === 'unrecognized_keys') {
    const key = issue.keys[0] ?? '';
    const where = ['settings', ...path, key].join('.');
    const allowed = Object.keys(shapeAt(path.map(String))).join(', ');
    return { path: [...path, key], reason: `unknown setting ${JSON.stringify(where)} (allowed: ${allowed})` };
  }
  return { path, reason: `${['settings', ...path].join('.')} ${issue.message}` };
}

/** One problem of a settings section, and what is left out for it when the section is read leniently. */
export interface SettingsProblem {
  /** Where it is inside the section (for the file's line and column). */
  path: Array<string | number>;
  reason: string;
  /** The part left out: the whole setting the problem is in, else the path itself (an unknown key). */
  dropped: string[];
  /** The setting left out, when `dropped` is one (`birdie config set|unset` can fix it). */
  key?: SettingKey;
}

/**
 * Every problem of a settings section, one at a time: each leaves out the setting it is in (the whole setting, so
 * a list with a bad entry is left out whole), then the rest is checked again. `layer`: what is left, valid.
 */
export function settingsProblems(section: Record<string, unknown> | undefined): {
  layer: SettingsLayer;
  problems: SettingsProblem[];
} {
  const rest = structuredClone(section ?? {});
  const problems: SettingsProblem[] = [];
  for (;;) {
    const checked = settingsProblem(rest);
    if ('layer' in checked) return { layer: checked.layer, problems };
    const at = checked.path.map(String);
    const key = [...SETTING_KEYS]
      .filter((k) => k.split('.').every((part, i) => at[i] === part))
      .sort((a, b) => b.length - a.length)[0];
    const dropped = key ? key.split('.') : at;
    problems.push({ ...checked, dropped, ...(key ? { key } : {}) });
    // Nothing to leave out (never for a section that is an object): the whole section goes.
    if (dropped.length === 0 || !dropPath(rest, dropped)) return { layer: {}, problems };
  }
}

/** Deletes the value at `path`; false when there was none (so a loop over problems always ends). */
function dropPath(section: Record<string, unknown>, path: string[]): boolean {
  let at: unknown = section;
  for (const part of path.slice(0, -1)) {
    if (at === null || typeof at !== 'object') return false;
    at = (at as Record<string, unknown>)[part];
  }
  const last = path.at(-1)!;
  if (at === null || typeof at !== 'object' || !Object.hasOwn(at, last)) return false;
  if (Array.isArray(at)) at.splice(Number(last), 1);
  else delete (at as Record<string, unknown>)[last];
  return true;
}

/** Checks a file's `settings` section; a problem is a usage error with the file, line and column. */
export function checkSettings(file: ConfigFile): SettingsLayer {
  if (file.settings === undefined) return {};
  const checked = settingsProblem(file.settings);
  if ('layer' in checked) return checked.layer;
  throw positioned(file, checked.path, checked.reason);
}

/** The keys allowed at `path` of the settings section, for the message about an unknown one. */
function shapeAt(path: string[]): Record<string, unknown> {
  let schema: unknown = settingsSchema;
  for (const part of path) {
    const shape = (schema as { shape?: Record<string, unknown> }).shape;
    schema = shape?.[part];
    // .optional() (from .partial()) wraps the object: its shape is inside.
    while (schema && !(schema as { shape?: unknown }).shape && (schema as { unwrap?: unknown }).unwrap)
      schema = (schema as { unwrap(): unknown }).unwrap();
  }
  return (schema as { shape?: Record<string, unknown> })?.shape ?? {};
}

export function positioned(file: ConfigFile, path: Array<string | number>, reason: string): UsageError {
  const { line, column } = file.placeOf(['settings', ...path]);
  return new UsageError(`Invalid config in file ${file.path} at line ${line}, column ${column}: ${reason}`);
}

/** Merges settings field by field, highest file first, over the defaults; says where each came from. */
export function mergeSettings(
  files: ConfigFile[],
  /** Given, a problem does not stop the merge: its setting is left out of that file and reported here. */
  onProblem?: (file: ConfigFile, problem: SettingsProblem) => void,
): {
  settings: Settings;
  sources: Record<SettingKey, string>;
} {
  const settings = defaultSettings();
  const sources: Record<SettingKey, string> = {
    approval: 'default',
    'skills.enable': 'default',
    'skills.disable': 'default',
    'serve.skills': 'default',
    'serve.agents': 'default',
    database_url: 'default',
    sandbox: 'default',
    container_runtime: 'default',
    context_window: 'default',
    context_messages: 'default',
    tool_budget: 'default',
    tool_budget_chars: 'default',
    titles: 'default',
    memory_files: 'default',
    web_fetch_allow: 'default',
    tool_output: 'default',
    model: 'default',
    'serve.limits.concurrent_turns': 'default',
    'serve.limits.turns_per_minute': 'default',
    'serve.workspaces': 'default',
    'serve.workspace': 'default',
    'serve.sandbox.network': 'default',
    'serve.limits.workspace_bytes': 'default',
    'serve.limits.mcp_sessions': 'default',
    'serve.limits.mcp_sessions_per_user': 'default',
    'serve.limits.mcp_idle_seconds': 'default',
    'permissions.allow': 'default',
    'permissions.ask': 'default',
    'permissions.deny': 'default',
  };
  for (const file of [...files].reverse()) {
    const layer = onProblem ? leniently(file, onProblem) : checkSettings(file);
    const from = `file ${file.path}`;
    if (layer.channels !== undefined) settings.channels = mergeChannels(settings.channels, layer.channels);
    if (layer.approval !== undefined) {
      settings.approval = layer.approval as Settings['approval'];
      sources.approval = from;
    }
    if (layer.database_url !== undefined) {
      settings.databaseUrl = layer.database_url;
      sources.database_url = from;
    }
    if (layer.skills?.enable !== undefined) {
      settings.skills.enable = layer.skills.enable;
      sources['skills.enable'] = from;
    }
    if (layer.skills?.disable !== undefined) {
      settings.skills.disable = layer.skills.disable;
      sources['skills.disable'] = from;
    }
    for (const key of ['skills', 'agents'] as const) {
      const value = layer.serve?.[key];
      if (value === undefined) continue;
      settings.serve[key] = value;
      sources[`serve.${key}`] = from;
    }
    if (layer.sandbox !== undefined) {
      settings.sandbox = layer.sandbox;
      sources.sandbox = from;
    }
    if (layer.container_runtime !== undefined) {
      settings.container_runtime = layer.container_runtime;
      sources.container_runtime = from;
    }
    for (const key of ['context_window', 'context_messages', 'tool_budget', 'tool_budget_chars'] as const) {
      if (layer[key] !== undefined) {
        settings[key] = layer[key];
        sources[key] = from;
      }
    }
    if (layer.titles !== undefined) {
      settings.titles = layer.titles;
      sources.titles = from;
    }
    if (layer.memory_files !== undefined) {
      settings.memory_files = [...new Set(layer.memory_files)];
      sources.memory_files = from;
    }
    if (layer.web_fetch_allow !== undefined) {
      settings.web_fetch_allow = [...new Set(layer.web_fetch_allow)];
      sources.web_fetch_allow = from;
    }
    if (layer.tool_output !== undefined) {
      settings.tool_output = layer.tool_output;
      sources.tool_output = from;
    }
    if (layer.model !== undefined) {
      settings.model = layer.model;
      sources.model = from;
    }
    for (const key of [
      'concurrent_turns',
      'turns_per_minute',
      'mcp_sessions',
      'mcp_sessions_per_user',
      'mcp_idle_seconds',
    ] as const) {
      const value = layer.serve?.limits?.[key];
      if (value !== undefined) {
        settings.serve.limits[key] = value;
        sources[`serve.limits.${key}`] = from;
      }
    }
    const serve = layer.serve;
    if (serve?.workspaces !== undefined) {
      settings.serve.workspaces = serve.workspaces;
      sources['serve.workspaces'] = from;
    }
    if (serve?.workspace !== undefined) {
      settings.serve.workspace = serve.workspace;
      sources['serve.workspace'] = from;
    }
    if (serve?.sandbox?.network !== undefined) {
      settings.serve.sandbox.network = serve.sandbox.network;
      sources['serve.sandbox.network'] = from;
    }
    if (serve?.limits?.workspace_bytes !== undefined) {
      settings.serve.limits.workspace_bytes = serve.limits.workspace_bytes;
      sources['serve.limits.workspace_bytes'] = from;
    }
    // Rules add up across files (a deny in either holds); the source names every file that has some.
    for (const effect of PERMISSION_EFFECTS) {
      const patterns = layer.permissions?.[effect];
      if (!patterns?.length) continue;
      for (const pattern of patterns) {
        if (!settings.permissions[effect].includes(pattern)) settings.permissions[effect].push(pattern);
        settings.permissionRules.push({ pattern, effect, file: file.path });
      }
      const key = `permissions.${effect}` as const;
      sources[key] = sources[key] === 'default' ? from : `${sources[key]}, ${from}`;
    }
  }
  return { settings, sources };
}

function leniently(
  file: ConfigFile,
  onProblem: (file: ConfigFile, problem: SettingsProblem) => void,
): SettingsLayer {
  const { layer, problems } = settingsProblems(file.settings);
  for (const problem of problems) onProblem(file, problem);
  return layer;
}
