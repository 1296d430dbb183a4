import { AgentError } from './errors.js';
import { blockToText, resourceContentsText } from './mcp-content.js';
import type { McpManager } from './mcp-manager.js';
import type { McpPromptResult } from './mcp-protocol.js';

/** One enabled MCP server of a session, by its skill's name, and what it declares. */
export interface McpServerInfo {
  server: string;
  prompts: boolean;
  resources: boolean;
  /** `resources/subscribe` is supported. */
  subscribe: boolean;
  /** `completion/complete` is supported. */
  completions: boolean;
}

export interface McpPromptArgument {
  name: string;
  description?: string;
  required: boolean;
}

/** A server's prompt, as a front end offers it (`/server:prompt arg=value …`). */
export interface McpPromptInfo {
  server: string;
  name: string;
  title?: string;
  description?: string;
  arguments: McpPromptArgument[];
  /** The server completes this prompt's argument values. */
  completions: boolean;
}

/** A resource read for a message: the text the model reads, and a line for the user. */
export interface McpAttachedResource {
  text: string;
  note: string;
  /** The session follows its changes (the server supports subscriptions). */
  subscribed: boolean;
}

/** Content types a prompt message may carry that birdie turns into text (everything else is refused). */
const PROMPT_CONTENT = new Set(['text', 'image', 'audio', 'resource', 'resource_link']);

/**
 * A prompt's messages as the user's turn: the text of each message (an assistant message is marked as such), an
 * embedded resource with its uri and text, an image or audio named (the turn is text). Unknown content is refused
 * with an `AgentError` (`mcp-prompt-unsupported`) rather than dropped.
 */
export function promptMessagesText(server: string, prompt: string, result: McpPromptResult): string {
  const parts: string[] = [];
  for (const message of result.messages) {
    const content = message.content as { type?: unknown };
    if (typeof content?.type !== 'string' || !PROMPT_CONTENT.has(content.type))
      throw new AgentError(
        'mcp-prompt-unsupported',
        `The prompt ${server}:${prompt} returned content of type "${String(content?.type)}", which birdie cannot send as a message.`,
      );
    const text = blockToText(content);
    parts.push(message.role === 'assistant' ? `[assistant]\n${text}` : text);
  }
  return parts.join('\n\n');
}

/**
 * What a front end uses of a session's MCP servers: their prompts (as commands, with argument completion) and their
 * resources (as `@server:uri` mentions, subscribed for the session). One view per session (`owner`), over the
 * agent's shared connections; `close` ends the session's subscriptions.
 */
export class McpSession {
  readonly #mcp: McpManager;
  readonly #owner: string;
  readonly #servers: string[];

  constructor(mcp: McpManager, owner: string, servers: readonly string[]) {
    this.#mcp = mcp;
    this.#owner = owner;
    this.#servers = [...servers];
  }

  /** The session's enabled servers that are connected, and what each declares. */
  get servers(): McpServerInfo[] {
    return this.#servers.map((server) => {
      const caps = this.#mcp.capabilities(server) ?? {};
      return {
        server,
        prompts: caps.prompts !== undefined,
        resources: caps.resources !== undefined,
        subscribe: caps.resources?.subscribe === true,
        completions: caps.completions !== undefined,
      };
    });
  }

  /** Whether `name` is one of the session's enabled servers (so `@name:…` is a resource, not a path). */
  has(name: string): boolean {
    return this.#servers.includes(name);
  }

  /** Every prompt of the servers that declare prompts; a server that fails to list them is left out. */
  async prompts(): Promise<McpPromptInfo[]> {
    const withPrompts = this.servers.filter((s) => s.prompts);
    const listed = await Promise.allSettled(withPrompts.map((s) => this.#mcp.listPrompts(s.server)));
    return listed.flatMap((result, index) => {
      if (result.status === 'rejected') return [];
      const info = withPrompts[index] as McpServerInfo;
      return result.value.map((p) => ({
        server: info.server,
        name: p.name,
        ...(p.title ? { title: p.title } : {}),
        ...(p.description ? { description: p.description } : {}),
        arguments: (p.arguments ?? []).map((a) => ({
          name: a.name,
          ...(a.description ? { description: a.description } : {}),
          required: a.required === true,
        })),
        completions: info.completions,
      }));
    });
  }

  /** `prompts/get`, as the text of the user's turn (see `promptMessagesText`). */
  async promptText(
    server: string,
    prompt: string,
    args: Record<string, string>,
    signal?: AbortSignal,
  ): Promise<string> {
    const result = await this.#mcp.getPrompt(this.#known(server), prompt, args, signal);
    return promptMessagesText(server, prompt, result);
  }

  /** Values the server suggests for a prompt argument (`completion/complete`); empty without the capability. */
  completeArgument(
    server: string,
    prompt: string,
    argument: { name: string; value: string },
    filled: Record<string, string> = {},
  ): Promise<string[]> {
    return this.#mcp.completePromptArgument(this.#known(server), prompt, argument, filled);
  }

  /** A server's resource URIs (at most `limit`), for completing `@server:`. */
  async resourceUris(server: string, limit = 100): Promise<string[]> {
    const { resources } = await this.#mcp.listResources(this.#known(server));
    return resources.slice(0, limit).map((r) => r.uri);
  }

  /**
   * Reads a resource for a message (`@server:uri`): its contents as the model reads them (uri, MIME type, text; a
   * binary one named), subscribed for the session when the server supports it.
   */
  async attachResource(server: string, uri: string, signal?: AbortSignal): Promise<McpAttachedResource> {
    const skill = this.#known(server);
    const result = await this.#mcp.readResource(skill, uri, signal);
    const blocks = result.contents.map((c) => resourceContentsText(c as Record<string, unknown>));
    const subscribed = await this.#mcp.subscribe(skill, uri, this.#owner).catch(() => false);
    const chars = blocks.reduce((n, b) => n + b.length, 0);
    return {
      text: `<mcp-resource server="${server}" uri="${uri}">\n${blocks.join('\n')}\n</mcp-resource>`,
      note: `attached @${server}:${uri} (${chars} chars${subscribed ? ', following its changes' : ''})`,
      subscribed,
    };
  }

  /** Ends the session's subscriptions (`resources/unsubscribe` where nobody else holds the resource). */
  close(): Promise<void> {
    return this.#mcp.unsubscribeAll(this.#owner);
  }

  #known(server: string): string {
    if (!this.has(server))
      throw new AgentError('mcp-unavailable', `"${server}" is not an enabled MCP server of this session.`);
    return server;
  }
}
