import { errorResultText, toolResultImages, toolResultToText } from './mcp-content.js';
import type { McpManager, McpServerTool } from './mcp-manager.js';
import { progressLine } from './mcp-progress.js';
import { describeToolError } from './skill-tool.js';
import { type DeclaredTool, declareTool, defaultApproval } from './tool.js';

export interface McpToolOptions {
  exposedName: string;
  skill: string;
  timeoutMs: number;
  maxOutputChars: number;
  onFailure: (error: unknown) => void;
}

/** A tool result the server marked `isError`: the call failed, with the server's words. */
export class McpToolError extends Error {
  override name = 'McpToolError';
  readonly code = 'mcp-tool-error';
}

export function isMcpToolError(value: unknown): value is McpToolError {
  return value instanceof McpToolError;
}

/**
 * A tool an MCP server lists, as a declared tool (renamed when its name clashes): the model is bound to the server's
 * own JSON Schema, and a call runs on the server through the manager, its progress notifications as live output.
 */
export function createMcpTool(
  mcp: McpManager,
  original: McpServerTool,
  options: McpToolOptions,
): DeclaredTool {
  return declareTool(
    {
      name: options.exposedName,
      description: original.description,
      skill: options.skill,
      kind: 'mcp',
      parameters: original.parameters,
      approval: defaultApproval(false, undefined),
      async execute(args, context) {
        try {
          const onOutput = context.onOutput;
          const result = await mcp.callTool(options.skill, original.name, args, {
            timeoutMs: options.timeoutMs,
            ...(context.signal ? { signal: context.signal } : {}),
            ...(onOutput ? { onProgress: (n) => onOutput({ stream: 'stdout', text: progressLine(n) }) } : {}),
            ...(context.mcp ? { scope: context.mcp } : {}),
          });
          if ((result as { isError?: unknown }).isError === true)
            throw new McpToolError(
              `MCP tool '${original.name}' returned an error: ${errorResultText(result) || 'no details'}`,
            );
          const images = toolResultImages(result);
          return { content: toolResultToText(result), ...(images.length > 0 ? { images } : {}) };
        } catch (error) {
          options.onFailure(error);
          throw error;
        }
      },
    },
    { maxOutputChars: options.maxOutputChars, describeError: describeToolError },
  );
}
