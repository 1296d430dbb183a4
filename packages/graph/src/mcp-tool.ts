import type { BaseMessage } from '@langchain/core/messages';
import type { StructuredToolInterface } from '@langchain/core/tools';
import { toJsonSchema } from '@langchain/core/utils/json_schema';
import { progressConfig } from './mcp-progress.js';
import { describeToolError } from './skill-tool.js';
import { type DeclaredTool, declareTool, defaultApproval } from './tool.js';

/**
 * MCP results may be content blocks; the model and the output cap both want one string. A block's text is what the
 * model reads (a result's `structuredContent` repeats its text as JSON, so it is sent only when there is no text);
 * binary blocks are named with their MIME type and size. The adapters' `[content, artifacts]` pair carries the
 * structured content of a result that has no text block among its artifacts.
 */
export function contentToText(content: unknown): string {
  if (typeof content === 'string') return content;
  if (isResultPair(content)) return resultToText(content[0], content[1]);
  if (Array.isArray(content)) return content.map(blockToText).join('\n');
  if (isBlock(content)) return blockToText(content);
  if (content && typeof content === 'object' && 'content' in content) {
    return contentToText((content as BaseMessage).content);
  }
  return JSON.stringify(content) ?? '';
}

/** A list of content blocks never holds a list, so a pair whose second half is one is `[content, artifacts]`. */
function isResultPair(value: unknown): value is [unknown, unknown[]] {
  return Array.isArray(value) && value.length === 2 && Array.isArray(value[1]);
}

function resultToText(content: unknown, artifacts: unknown[]): string {
  const text = contentToText(content);
  if (hasText(content)) return text;
  const structured = artifacts.find(
    (artifact) => (artifact as { type?: unknown } | null)?.type === 'mcp_structured_content',
  ) as { data?: unknown } | undefined;
  if (structured?.data === undefined) return text;
  const json = JSON.stringify(structured.data);
  return text ? `${text}\n${json}` : json;
}

function hasText(content: unknown): boolean {
  if (typeof content === 'string') return content !== '';
  const blocks = Array.isArray(content) ? content : [content];
  return blocks.some(
    (block) => typeof block === 'string' || typeof (block as { text?: unknown } | null)?.text === 'string',
  );
}

function isBlock(value: unknown): boolean {
  return value !== null && typeof value === 'object' && 'type' in (value as object);
}

function blockToText(block: unknown): string {
  if (typeof block === 'string') return block;
  if (block && typeof block === 'object') {
    const b = block as Record<string, unknown>;
    if (typeof b.text === 'string') return b.text;
    if (b.structuredContent !== undefined) return JSON.stringify(b.structuredContent);
    return binaryLabel(b);
  }
  return String(block);
}

/** `[image: image/png, 1234 bytes]`, from a block's own fields or its data URL. */
function binaryLabel(b: Record<string, unknown>): string {
  const url = (b.image_url as { url?: unknown } | undefined)?.url ?? b.image_url ?? b.url;
  const dataUrl = typeof url === 'string' ? /^data:([^;,]+)(;base64)?,/.exec(url) : null;
  const mime = b.mimeType ?? b.mime_type ?? dataUrl?.[1];
  const base64 =
    typeof b.data === 'string' ? b.data : dataUrl?.[2] ? String(url).slice(dataUrl[0].length) : '';
  const kind = String(b.type ?? 'content').replace(/_url$/, '');
  const size = base64 ? `, ${Math.floor((base64.replace(/=+$/, '').length * 3) / 4)} bytes` : '';
  return `[${kind}${mime ? `: ${String(mime)}` : ''}${size}]`;
}

/** `DynamicStructuredTool.func` of the adapters' tools: answers `[content, artifacts]`. */
type McpToolFunction = (
  args: Record<string, unknown>,
  runManager: undefined,
  config: { timeout: number; signal?: AbortSignal; configurable?: Record<string, unknown> },
) => Promise<unknown>;

export interface McpToolOptions {
  exposedName: string;
  skill: string;
  timeoutMs: number;
  maxOutputChars: number;
  onFailure: (error: unknown) => void;
}

/**
 * An MCP tool (a LangChain tool from the adapters, which runs the call on the server) as a declared tool, renamed
 * when its name clashes. The model is bound to its definition; the adapters' tool object only runs calls.
 */
export function createMcpTool(original: StructuredToolInterface, options: McpToolOptions): DeclaredTool {
  const parameters = (original.schema ?? { type: 'object', properties: {} }) as Record<string, unknown>;
  return declareTool(
    {
      name: options.exposedName,
      description: original.description,
      skill: options.skill,
      kind: 'mcp',
      parameters: isJsonSchema(parameters) ? parameters : toJsonSchema(parameters as never),
      approval: defaultApproval(false, undefined),
      async execute(args, context) {
        try {
          const config = {
            timeout: options.timeoutMs,
            ...(context.signal ? { signal: context.signal } : {}),
            ...progressConfig(context.onOutput),
          };
          // `invoke` keeps only the content of the adapters' `[content, artifacts]` answer, and a result made of
          // structured content alone has its data among the artifacts: take the pair from the tool's function
          // (the arguments were already checked against the same schema by `build`).
          const call = (original as { func?: unknown }).func;
          const result =
            typeof call === 'function'
              ? await (call as McpToolFunction).call(original, args, undefined, config)
              : await original.invoke(args, config);
          return { content: contentToText(result) };
        } catch (error) {
          options.onFailure(error);
          throw error;
        }
      },
    },
    { maxOutputChars: options.maxOutputChars, describeError: describeToolError },
  );
}

/** The adapters give JSON Schema objects; a zod schema (another LangChain tool) is converted. */
function isJsonSchema(schema: Record<string, unknown>): boolean {
  return typeof schema.type === 'string' || 'properties' in schema || '$schema' in schema;
}
