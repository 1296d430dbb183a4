import type { McpPromptInfo, McpSession } from '@birdie/graph';
import type { CommandClash, CustomCommand } from './custom-commands.js';
import type { DiagnosticLike } from './diagnostics.js';

/** A prompt name a user can type after `/server:` (the rest are not offered). */
const PROMPT_NAME = /^[A-Za-z0-9][A-Za-z0-9_.-]{0,63}$/;

/** What a prompt command's arguments cannot be: a name it does not take, a required one missing. */
export class PromptArgumentsError extends Error {
  override name = 'PromptArgumentsError';
  readonly code = 'bad-prompt-arguments';
}

export function isPromptArgumentsError(value: unknown): value is PromptArgumentsError {
  return value instanceof PromptArgumentsError;
}

/** `/server:prompt`'s usage: its arguments as `name=…`, optional ones in brackets. */
export function promptUsage(prompt: McpPromptInfo): string {
  const args = prompt.arguments.map((a) => (a.required ? `${a.name}=…` : `[${a.name}=…]`));
  return [`/${prompt.server}:${prompt.name}`, ...args].join(' ');
}

/**
 * A session's MCP prompts as custom commands of the lowest layer (`mcp`), named `server:prompt`, for
 * `loadCustomCommands` to order against the built-in, user and project commands.
 */
export function promptCommands(prompts: readonly McpPromptInfo[]): CustomCommand[] {
  return prompts
    .filter((p) => PROMPT_NAME.test(p.name))
    .map((prompt) => ({
      name: `${prompt.server}:${prompt.name}`,
      ...((prompt.description ?? prompt.title) ? { description: prompt.description ?? prompt.title } : {}),
      template: '',
      layer: 'mcp' as const,
      file: `MCP server ${prompt.server}`,
      prompt,
    }));
}

/** `name=value` words (a value may be quoted: `city="New York"`), as typed after the command. */
const ARGUMENT = /([^\s=]+)=("((?:[^"\\]|\\.)*)"|'([^']*)'|(\S*))/y;

function unquote(match: RegExpExecArray): string {
  if (match[3] !== undefined) return match[3].replace(/\\(.)/g, '$1');
  return match[4] ?? match[5] ?? '';
}

/**
 * The arguments typed after `/server:prompt`: `name=value` words; a prompt with one argument also takes the whole
 * text as its value. Refused (`PromptArgumentsError`) for a name the prompt does not take or a required one missing.
 */
export function parsePromptArguments(prompt: McpPromptInfo, text: string): Record<string, string> {
  const trimmed = text.trim();
  const values: Record<string, string> = {};
  const only = prompt.arguments.length === 1 ? prompt.arguments[0] : undefined;
  if (only && trimmed !== '' && !trimmed.startsWith(`${only.name}=`)) values[only.name] = trimmed;
  else {
    let at = 0;
    while (at < trimmed.length) {
      ARGUMENT.lastIndex = at;
      const match = ARGUMENT.exec(trimmed);
      if (!match)
        throw new PromptArgumentsError(
          `Arguments are name=value words; got "${trimmed.slice(at).split(/\s/)[0]}". Usage: ${promptUsage(prompt)}`,
        );
      values[match[1] as string] = unquote(match);
      at = ARGUMENT.lastIndex;
      while (trimmed[at] === ' ' || trimmed[at] === '\t') at += 1;
    }
  }
  const known = new Set(prompt.arguments.map((a) => a.name));
  const unknown = Object.keys(values).filter((name) => !known.has(name));
  if (unknown.length > 0)
    throw new PromptArgumentsError(
      `/${prompt.server}:${prompt.name} takes no argument ${unknown.join(', ')}. Usage: ${promptUsage(prompt)}`,
    );
  const missing = prompt.arguments.filter((a) => a.required && !values[a.name]).map((a) => a.name);
  if (missing.length > 0)
    throw new PromptArgumentsError(
      `/${prompt.server}:${prompt.name} needs ${missing.join(', ')}. Usage: ${promptUsage(prompt)}`,
    );
  return values;
}

/** The user's turn a prompt command sends: `prompts/get` with the typed arguments, as text. */
export async function promptTurnText(
  session: McpSession,
  prompt: McpPromptInfo,
  text: string,
  signal?: AbortSignal,
): Promise<string> {
  return session.promptText(prompt.server, prompt.name, parsePromptArguments(prompt, text), signal);
}

function quoted(value: string): string {
  return /[\s"'\\]/.test(value) ? `"${value.replace(/(["\\])/g, '\\$1')}"` : value;
}

/**
 * What Tab offers for the word being typed after `/server:prompt` (`typed` is everything after the command): the
 * argument names not given yet (`city=`), or after `name=` the values the server completes (`completion/complete`,
 * with the arguments already given as context; nothing when the server does not declare completions).
 */
export async function promptArgumentCandidates(
  session: McpSession,
  prompt: McpPromptInfo,
  typed: string,
): Promise<string[]> {
  const words = typed.split(/\s+/);
  const partial = words.pop() ?? '';
  const filled: Record<string, string> = {};
  for (const word of words) {
    const eq = word.indexOf('=');
    if (eq > 0) filled[word.slice(0, eq)] = word.slice(eq + 1).replace(/^["']|["']$/g, '');
  }
  const eq = partial.indexOf('=');
  if (eq === -1) return prompt.arguments.filter((a) => !(a.name in filled)).map((a) => `${a.name}=`);
  const name = partial.slice(0, eq);
  if (!prompt.completions || !prompt.arguments.some((a) => a.name === name)) return [];
  const value = partial.slice(eq + 1).replace(/^["']/, '');
  const values = await session.completeArgument(prompt.server, prompt.name, { name, value }, filled);
  return values.map((v) => `${name}=${quoted(v)}`);
}

/**
 * `skills check`'s warnings for MCP prompts a command of higher precedence hides (`mcp-prompt-shadowed`), at the
 * SKILL.md that declares the server.
 */
export function shadowedPromptDiagnostics(
  clashes: readonly CommandClash[],
  skillFile: (server: string) => string | undefined,
): DiagnosticLike[] {
  return clashes.flatMap((clash) => {
    const prompt = clash.hidden.prompt;
    if (!prompt) return [];
    const by =
      clash.by === 'built-in' ? 'the built-in command' : `the ${clash.by.layer} command ${clash.by.file}`;
    return [
      {
        file: skillFile(prompt.server),
        line: 1,
        column: 1,
        reason: `The MCP prompt ${prompt.name} of ${prompt.server} is hidden: /${clash.name} runs ${by}. Rename that command to reach the prompt.`,
        source: 'birdie',
        ruleId: 'mcp-prompt-shadowed',
        fatal: false,
      },
    ];
  });
}
