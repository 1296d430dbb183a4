import type { FileAccess, OutputChunk, ToolImage } from '@birdie/entrypoints';
import type { ToolDefinition } from '@langchain/core/language_models/base';
import type { BaseMessage } from '@langchain/core/messages';
import { argsDigest } from './digest.js';
import { argsPreparer } from './json-args.js';
import type { McpScope } from './mcp-connection.js';
import { capOutput } from './output-cap.js';
import type {
  ApprovalMode,
  ApprovalRequest,
  ChangePreview,
  CompactionRecord,
  LongTermMemory,
  TaskBook,
} from './types.js';

export type ToolKind = 'skill' | 'mcp' | 'builtin';
export type ApprovalReason = ApprovalRequest['reason'];

/** What a call needs when it runs. Nothing here is stored in state or checkpoints. */
export interface ToolRunContext {
  cwd: string;
  /** Environment for child processes, on top of the entrypoints allowlist (a `node:` tool's `context.env`). */
  env?: Record<string, string>;
  signal?: AbortSignal;
  /** Text file access through the application (a `node:` tool's `context.files`). */
  files?: FileAccess;
  /** The thread's history and loaded skills (`load_skill`'s "already loaded" check); absent outside a turn. */
  messages?: readonly BaseMessage[];
  loadedSkills?: readonly string[];
  /** The message cap and the thread's compactions: what the model is still sent (`load_skill`'s check). */
  contextMessages?: number;
  compactions?: readonly CompactionRecord[];
  /** The id of the call being run (absent outside a turn). */
  callId?: string;
  /**
   * Hears the call's output while it runs (a skill tool's child process; see `RunOptions.onOutput` of
   * `@birdie/entrypoints`). The result does not change; tools without a child process never call it.
   */
  onOutput?: (chunk: OutputChunk) => void;
  /** The user's long-term memory, for the builtin memory tools only; skill entrypoints never receive it. */
  memoryStore?: LongTermMemory;
  /** The user's scheduled tasks, for the builtin task tools only. */
  taskStore?: TaskBook;
  /** Who answers an MCP server's sampling and elicitation requests and hears its notices during the call. */
  mcp?: McpScope;
  /** @internal What the `task` builtin needs from the running turn: a way to run a subagent. */
  delegate?: Delegate;
  /** @internal What `find_tools` needs from the running step: a search over the tools held back from the model. */
  findTools?: FindToolsSearch;
}

/** One tool `find_tools` returned: what the model reads about it. */
export interface FoundTool {
  name: string;
  skill?: string;
  description: string;
}

/** Why a found tool could not be added: the budget's number of tools, or its characters of definitions, is full. */
export interface NotAddedTool extends FoundTool {
  over: { tools: number } | { chars: number };
}

/** One search's results, best first, split by whether the next step will bind them. */
export interface FindToolsResult {
  /** Bound from the next step on. */
  added: FoundTool[];
  /** Found, but the tool budget has no room for them beside the tools always given and the better results. */
  notAdded: NotAddedTool[];
  /** Tools found earlier that the added ones push out of the budget (no longer bound). */
  dropped: string[];
}

/** @internal Searches the tools held back from the model (see `find_tools`). */
export type FindToolsSearch = (query: string, limit: number) => FindToolsResult;

/** @internal Runs a subagent for a `task` call to its end, or until it waits for approvals (`suspended`). */
export type Delegate = (request: {
  agent: string;
  prompt: string;
  callId: string;
}) => Promise<{ content: string } | { suspended: true }>;

export interface ToolResult {
  ok: boolean;
  /** Exactly what the model reads: the output, or `Error (code): message` with any output captured; capped. */
  content: string;
  truncated: boolean;
  /** The failure's stable code (an entrypoint error code, `error` for anything else) when `ok` is false. */
  code?: string;
  /** Skill names the call loaded (only `load_skill`). */
  loaded?: string[];
  /** Tool names the call added, bound from the next step on (only `find_tools`; best-ranked last, as `foundTools`). */
  found?: string[];
  /** The agent the conversation moves to (only `handoff`). */
  handoff?: string;
  /** A `task` whose subagent waits for approvals: it has no result yet (the tools node asks, then finishes it). */
  suspended?: boolean;
  /** Images the call returned, for models that can see them; `content` names them for every other reader. */
  images?: readonly ToolImage[];
}

/** A call checked against the tool's schema, defaults applied once: what the user approves is what runs. */
export interface ToolInvocation {
  readonly tool: DeclaredTool;
  readonly args: Readonly<Record<string, unknown>>;
  /** SHA-256 of the tool name and the arguments (keys sorted): an approval decision is bound to it. */
  readonly digest: string;
  /** One line for a prompt to the user. */
  describe(reason?: ApprovalReason): string;
  /** Why this call needs approval under `mode`, or null. */
  approval(mode: ApprovalMode): ApprovalReason | null;
  /** Runs the call; a failure of the tool is a result with `ok: false`, never a throw. */
  run(context: ToolRunContext): Promise<ToolResult>;
  /**
   * What the call would change, computed without side effects (tools that declare a `preview:`); never throws: a
   * failure is `{ error }`.
   */
  preview?(context: ToolRunContext): Promise<ChangePreview>;
}

export type BuildResult = { ok: true; invocation: ToolInvocation } | { ok: false; error: string };

/**
 * A tool as declared (by a skill, an MCP server or birdie itself): a name, a JSON Schema and a way to build
 * invocations. It holds no LangChain tool object: the model is given `definition`, which is data only.
 */
export interface DeclaredTool {
  readonly name: string;
  readonly description: string;
  readonly skill?: string;
  readonly kind: ToolKind;
  /** Runs a raw command (a `bash:` template that is only `{command}`): a turn may require that it always asks. */
  readonly raw?: true;
  /** The function definition bound to the model: name, description, JSON Schema. */
  readonly definition: ToolDefinition;
  /** Validates against the schema and applies defaults; a failure is a message the model can act on. */
  build(args: unknown): BuildResult;
}

export interface ToolBody {
  name: string;
  description: string;
  skill?: string;
  kind: ToolKind;
  parameters: Record<string, unknown>;
  approval(mode: ApprovalMode): ApprovalReason | null;
  /** The tool runs a raw command (see `DeclaredTool.raw`). */
  raw?: boolean;
  /** True when the tool bounds its own output, so the generic cut does not apply. */
  ownLimit?: boolean;
  /** Throws on failure; `declareTool` turns that into the model-facing error text. */
  execute(args: Record<string, unknown>, context: ToolRunContext): Promise<ToolOutcome>;
  /** The planned changes of a call, without side effects; may throw (the failure is shown as the preview's error). */
  preview?(args: Record<string, unknown>, context: ToolRunContext): Promise<ChangePreview>;
}

/** What a tool's body returns: its text, and for some builtins an effect on the thread. */
export type ToolOutcome =
  | {
      content: string;
      loaded?: string[];
      found?: string[];
      handoff?: string;
      images?: readonly ToolImage[];
      /**
       * The entrypoint already cut `content` (it stops keeping output at its own cap): with how many bytes it left
       * out when it counted them. The note of a further cut then counts those too, or says its count is a minimum.
       */
      cut?: { droppedBytes?: number };
    }
  | { suspended: true };

type ToolOutcomeCut = Extract<ToolOutcome, { content: string }>['cut'];

/** Turns a tool's parts into the two-phase tool: `build(args)` once, then `describe`, `approval`, `run`. */
export function declareTool(
  body: ToolBody,
  options: { maxOutputChars: number; describeError: (error: unknown) => { code: string; text: string } },
): DeclaredTool {
  const prepare = argsPreparer(body.parameters);
  const definition: ToolDefinition = {
    type: 'function',
    function: { name: body.name, description: body.description, parameters: body.parameters },
  };
  const tool: DeclaredTool = {
    name: body.name,
    description: body.description,
    ...(body.skill !== undefined ? { skill: body.skill } : {}),
    kind: body.kind,
    ...(body.raw ? { raw: true as const } : {}),
    definition,
    build(raw) {
      const prepared = prepare(raw as Record<string, unknown>);
      if (!prepared.ok) return prepared;
      const args = Object.freeze(prepared.args);
      const invocation: ToolInvocation = {
        tool,
        args,
        digest: argsDigest(body.name, args),
        describe: (reason) => describeCall(tool, args, reason),
        approval: (mode) => body.approval(mode),
        ...(body.preview
          ? {
              async preview(context: ToolRunContext): Promise<ChangePreview> {
                try {
                  return await body.preview!(structuredClone(args) as Record<string, unknown>, context);
                } catch (error) {
                  return { error: options.describeError(error).text };
                }
              },
            }
          : {}),
        async run(context) {
          let result: ToolResult;
          let cut: ToolOutcomeCut;
          try {
            const outcome = await body.execute(structuredClone(args) as Record<string, unknown>, context);
            if ('suspended' in outcome) return { ok: true, content: '', truncated: false, suspended: true };
            cut = outcome.cut;
            result = {
              ok: true,
              content: outcome.content,
              truncated: false,
              ...(outcome.loaded ? { loaded: outcome.loaded } : {}),
              ...(outcome.found ? { found: outcome.found } : {}),
              ...(outcome.handoff ? { handoff: outcome.handoff } : {}),
              ...(outcome.images?.length ? { images: outcome.images } : {}),
            };
          } catch (error) {
            const { code, text } = options.describeError(error);
            result = { ok: false, content: text, truncated: false, code };
          }
          if (body.ownLimit) return result;
          const capped = capOutput(result.content, options.maxOutputChars, cut);
          return { ...result, content: capped.text, truncated: capped.truncated };
        },
      };
      return { ok: true, invocation };
    },
  };
  return tool;
}

function clip(text: string, max: number): string {
  const flat = text.replace(/\s+/g, ' ').trim();
  return flat.length > max ? `${flat.slice(0, max - 1)}…` : flat;
}

/**
 * The approval question's text. The call is in it whole, never shortened: a user approves what they were shown, so a
 * prompt shows all of it or does not offer approval (DESIGN.md §5). The command is kept as written (a newline in it
 * separates commands, so it is not folded into a space); only the tool's own description is shortened.
 */
function describeCall(
  tool: DeclaredTool,
  args: Readonly<Record<string, unknown>>,
  reason?: ApprovalReason,
): string {
  if ((reason === 'raw-command' || (reason === 'rule' && tool.raw)) && typeof args.command === 'string')
    return `Run shell command: ${args.command}`;
  const owner = tool.skill ? `${tool.skill} › ` : '';
  return `${owner}${tool.name}(${JSON.stringify(args)}): ${clip(tool.description, 160)}`;
}

/**
 * The approval rule every tool kind shares: the session's mode first, then what the tool declares. A tool that
 * changes files (it declares a `preview:`) or whose command can run a value as code (`Entrypoint.runsCode`) asks
 * under the default mode unless it declares `approval: never`.
 */
export function defaultApproval(
  raw: boolean,
  declared: 'required' | 'never' | undefined,
  changesFiles = false,
  runsCode = false,
) {
  return (mode: ApprovalMode): ApprovalReason | null => {
    if (mode === 'never') return null;
    if (mode === 'always') return 'mode-always';
    if (declared === 'required') return 'approval-required';
    if (raw && declared !== 'never') return 'raw-command';
    if (runsCode && declared !== 'never') return 'runs-code';
    if (changesFiles && declared !== 'never') return 'file-change';
    return null;
  };
}
