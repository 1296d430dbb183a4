import type { BaseMessage } from '@langchain/core/messages';
import { DynamicStructuredTool, type StructuredToolInterface } from '@langchain/core/tools';
import { argsPreparer } from './json-args.js';
import { defaultApproval, type RuntimeTool } from './runtime-tool.js';

/** MCP results may be content blocks; the model and the output cap both want one string. */
export function contentToText(content: unknown): string {
  if (typeof content === 'string') return content;
  if (Array.isArray(content) && content.length === 2 && !isBlock(content[0]) && Array.isArray(content[1])) {
    return contentToText(content[0]);
  }
  if (Array.isArray(content)) return content.map(blockToText).join('\n');
  if (content && typeof content === 'object' && 'content' in content) {
    return contentToText((content as BaseMessage).content);
  }
  return JSON.stringify(content) ?? '';
}

function isBlock(value: unknown): boolean {
  return value !== null && typeof value === 'object' && 'type' in (value as object);
}

function blockToText(block: unknown): string {
  if (typeof block === 'string') return block;
  if (block && typeof block === 'object') {
    const b = block as Record<string, unknown>;
    if (typeof b.text === 'string') return b.text;
    const mime = b.mimeType ?? b.mime_type ?? '';
    return `[${String(b.type ?? 'content')}${mime ? `: ${String(mime)}` : ''}]`;
  }
  return String(block);
}

export interface McpToolOptions {
  exposedName: string;
  skill: string;
  timeoutMs: number;
  onFailure: (error: unknown) => void;
}

/** An MCP tool (already a LangChain tool from the adapters), renamed when needed and made a `RuntimeTool`. */
export function createMcpTool(original: StructuredToolInterface, options: McpToolOptions): RuntimeTool {
  const schema = (original.schema ?? { type: 'object', properties: {} }) as Record<string, unknown>;
  const prepare = argsPreparer(schema);
  const execute: RuntimeTool['execute'] = async (args, context) => {
    try {
      const result = await original.invoke(args, {
        timeout: options.timeoutMs,
        ...(context.signal ? { signal: context.signal } : {}),
      });
      return { content: contentToText(result) };
    } catch (error) {
      options.onFailure(error);
      throw error;
    }
  };
  const lc =
    options.exposedName === original.name
      ? original
      : new DynamicStructuredTool({
          name: options.exposedName,
          description: original.description,
          schema: schema as never,
          func: async (input: Record<string, unknown>) => contentToText(await original.invoke(input)),
        });
  return {
    name: options.exposedName,
    description: original.description,
    skill: options.skill,
    kind: 'mcp',
    lc,
    approvalReason: defaultApproval(false, undefined),
    prepare,
    execute,
  };
}
