import { z } from 'zod';
import type { Reporter } from './diagnostics.js';
import type { Source } from './source.js';
import { type Entry, yamlValue } from './tool-entries.js';
import type { SkillTool } from './types.js';
import { zodReason } from './values.js';

const flag = z.boolean({ error: 'expected true or false' });
const path = z.string({ error: 'expected a path relative to the skill folder' }).min(1, 'expected a path');
const scalarText = z.union([z.string(), z.number(), z.boolean()]).transform(String);

/**
 * Tool keys that tell an entrypoint how to run (read by `@birdie/entrypoints`), each with the schemes it applies to.
 * A key on a tool of another scheme is reported and left out.
 */
const SETTINGS = {
  sandbox: { schema: flag, schemes: ['bash', 'python', 'node'] },
  network: { schema: flag, schemes: ['bash', 'python', 'node', 'container'] },
  writable: { schema: flag, schemes: ['container'] },
  memory: {
    schema: z
      .string({ error: 'expected a size such as 512m or 2g' })
      .regex(/^[1-9]\d*(?:\.\d+)?[bkmg]?$/i, 'expected a size such as 512m or 2g'),
    schemes: ['container'],
  },
  cpus: {
    schema: z.number({ error: 'expected a number of CPUs' }).positive('must be positive'),
    schemes: ['container'],
  },
  pids: {
    schema: z
      .number({ error: 'expected a whole number' })
      .int('expected a whole number')
      .positive('must be positive'),
    schemes: ['container'],
  },
  proto: { schema: path, schemes: ['grpc'] },
  tls: { schema: flag, schemes: ['grpc'] },
  ca: { schema: path, schemes: ['grpc'] },
  metadata: {
    schema: z.record(z.string(), scalarText, { error: 'expected a mapping of metadata keys to text values' }),
    schemes: ['grpc'],
  },
} as const;

export type ToolSettingKey = keyof typeof SETTINGS;
export const TOOL_SETTING_KEYS = Object.keys(SETTINGS) as ToolSettingKey[];

type Settings = Pick<SkillTool, ToolSettingKey>;

/** Reads the settings keys of one tool block; wrong values are `invalid-type`, keys for another scheme a warning. */
export function readToolSettings(
  source: Source,
  byKey: ReadonlyMap<string, Entry>,
  entrypoint: string | undefined,
  reporter: Reporter,
  tool: string,
): Settings {
  const scheme = entrypoint ? /^([a-z][a-z0-9+._-]*):/.exec(entrypoint)?.[1] : undefined;
  const settings: Record<string, unknown> = {};
  for (const key of TOOL_SETTING_KEYS) {
    const entry = byKey.get(key);
    if (!entry) continue;
    const { ok, value } = yamlValue(source, entry, reporter);
    if (!ok) continue;
    const parsed = SETTINGS[key].schema.safeParse(value);
    if (!parsed.success) {
      reporter.report(
        'invalid-type',
        `Tool \`${tool}\`, \`${key}\`: ${zodReason(parsed.error)}`,
        entry.inlineStart,
        entry.inlineStart + entry.inline.length,
      );
      continue;
    }
    const schemes: readonly string[] = SETTINGS[key].schemes;
    if (scheme && !schemes.includes(scheme)) {
      reporter.report(
        'tool-key-not-applicable',
        `\`${key}\` applies to ${schemes.map((s) => `${s}:`).join(', ')} tools, not to a ${scheme}: tool; it is ignored`,
        entry.keyStart,
        entry.keyStart + key.length,
      );
      continue;
    }
    settings[key] = parsed.data;
  }
  return settings as Settings;
}
