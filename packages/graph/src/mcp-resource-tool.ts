import { MCP_READ_RESOURCE } from './builtin-names.js';
import { resourceContentsText } from './mcp-content.js';
import type { McpManager } from './mcp-manager.js';
import { describeBuiltinError } from './progressive.js';
import { type DeclaredTool, declareTool } from './tool.js';

/** A server with resources, by the name the model uses (its skill's) and its skill. */
export interface ResourceServer {
  server: string;
  skill: string;
}

const LISTED = 100;

/**
 * `mcp_read_resource(server, uri?)`: the contents of a resource of an allowed MCP server, or without `uri` what the
 * server offers (its resources and URI templates). Offered when an allowed server declares resources; reading is the
 * server's own read-only operation, so it never asks.
 */
export function createReadResourceTool(
  mcp: McpManager,
  servers: readonly ResourceServer[],
  maxOutputChars: number,
): DeclaredTool {
  const bySkill = new Map(servers.map((s) => [s.server, s.skill]));
  return declareTool(
    {
      name: MCP_READ_RESOURCE,
      description:
        'Read a resource of an MCP server by its URI (a resource link in a tool result names one). Without `uri`, lists the resources and URI templates the server offers.',
      kind: 'builtin',
      parameters: {
        type: 'object',
        properties: {
          server: { type: 'string', enum: servers.map((s) => s.server), description: 'The MCP server' },
          uri: { type: 'string', description: 'The resource URI; omit it to list what the server offers' },
        },
        required: ['server'],
        additionalProperties: false,
      },
      approval: () => null,
      async execute(args, context) {
        const skill = bySkill.get(String(args.server)) as string;
        const signal = context.signal;
        if (typeof args.uri !== 'string' || args.uri === '') {
          const { resources, templates } = await mcp.listResources(skill, signal);
          const lines = [
            ...resources
              .slice(0, LISTED)
              .map((r) => `${r.uri}  ${r.name}${r.description ? ` — ${r.description}` : ''}`),
            ...(resources.length > LISTED ? [`… ${resources.length - LISTED} more`] : []),
            ...templates.map(
              (t) => `${t.uriTemplate}  ${t.name} (template)${t.description ? ` — ${t.description}` : ''}`,
            ),
          ];
          return { content: lines.length > 0 ? lines.join('\n') : 'The server lists no resources.' };
        }
        const result = await mcp.readResource(skill, args.uri, signal);
        // Read once, attached to the session: its changes reach the session's next model call.
        const owner = context.mcp?.owner;
        if (owner !== undefined) await mcp.subscribe(skill, args.uri, owner).catch(() => false);
        return {
          content: result.contents.map((c) => resourceContentsText(c as Record<string, unknown>)).join('\n'),
        };
      },
    },
    { maxOutputChars, describeError: describeBuiltinError },
  );
}
