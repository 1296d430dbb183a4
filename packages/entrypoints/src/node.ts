import { stat } from 'node:fs/promises';
import { pathToFileURL } from 'node:url';
import { withDefaults } from './args.js';
import { sandboxRequest } from './confinement.js';
import { childEnv } from './env.js';
import { EntrypointError } from './errors.js';
import { limitsOf, seconds } from './limits.js';
import { nodeTarget } from './module-target.js';
import { NodeCallScope } from './node-call-scope.js';
import { runNodeChild } from './node-child.js';
import { callFailed, exportMissing, importFailed } from './node-failures.js';
import { runsInProcess } from './node-placement.js';
import { resultText } from './result-text.js';
import { sandboxAccess } from './sandbox-layout.js';
import { lexicalInside, realInside } from './skill-path.js';
import type { Confinement, Entrypoint, FileAccess, RunOptions, RunResult, SchemeContext } from './types.js';

/** The second argument of a `node:` tool function. */
export interface NodeToolContext {
  signal: AbortSignal;
  /** `options.cwd`, else the skill folder: the same working directory a `bash:` tool would get. */
  cwd: string;
  /**
   * Only the caller's `options.env`. In-process code can read the host's environment anyway; a sandboxed child's
   * `process.env` is the cleaned environment of every child process (no API keys).
   */
  env: Record<string, string>;
  /**
   * The application's file access (`options.files`), when it has one: read and write text through it rather than
   * the disk. Absent otherwise, and always in a sandboxed child. A tool gets no other handle on the application (no
   * store, no session).
   */
  files?: FileAccess;
  /**
   * Set when the call runs in-process while the sandbox applies to it (the application's own tools,
   * `configureNodeTools`): how the sandbox would show a host path to a sandboxed tool of the same working directory —
   * `read-write`, `read-only` (a protected path such as `.git` or `.envrc`, the home's top level) or `hidden` (a
   * birdie folder, a config file birdie read, the home's dot entries). A tool that acts on the disk for the model
   * refuses to read what is hidden and to change what is not `read-write`, so the mode is as strong for it as for a
   * sandboxed one.
   */
  sandbox?: {
    access(path: string): SandboxAccess;
    /** The paths it hides (real paths): a tool that walks a tree skips them. */
    hidden: readonly string[];
  };
}

/** How the sandbox shows one path to a tool (see `NodeToolContext.sandbox`). */
export type SandboxAccess = 'read-write' | 'read-only' | 'hidden';

type ToolFunction = (args: Record<string, unknown>, context: NodeToolContext) => unknown;

/**
 * `node:<module path>#<export>`: an ES module inside the skill folder, called with the arguments object and
 * `{ signal, cwd, env, files? }`. Where the sandbox applies to the call (the tool declares `sandbox: true`, the call
 * asks for it, or the mode is `always`), it runs in a sandboxed child process (node-child.ts), unless its skill folder
 * holds the application's own tools (`configureNodeTools`), which stay in-process. Otherwise the module is imported
 * once (again once its file changed) and called in-process.
 */
export function nodeScheme(target: string, context: SchemeContext): Entrypoint {
  const where = context.entrypoint;
  const parsed = nodeTarget(target);
  if (!parsed) {
    throw new EntrypointError('bad-entrypoint', `${where}: expected node:<module path>#<export>`);
  }
  const { modulePath, exportName } = parsed;
  const file = lexicalInside(context.skillDir, modulePath, where);
  // The module as last imported, by the file's version: an edited file is imported again (see `moduleVersion`).
  let loaded: { version: string; fn: Promise<ToolFunction> } | undefined;

  const load = async (real: string, version: string): Promise<ToolFunction> => {
    let module: Record<string, unknown>;
    try {
      // Node keeps a module (and a failed import) for the life of the process, by URL: the version in the query
      // makes an edited file a new one. Entrypoints of one file share its import while the file stays as it is.
      module = await import(`${pathToFileURL(real).href}?v=${version}`);
    } catch (cause) {
      throw importFailed(where, modulePath, cause instanceof Error ? cause.message : String(cause), cause);
    }
    const fn = module[exportName];
    if (typeof fn !== 'function') throw exportMissing(where, modulePath, exportName);
    return fn as ToolFunction;
  };
  const declared = context.settings?.sandbox === true;

  return {
    scheme: 'node',
    raw: false,
    placeholders: [],
    /** Read when asked: the application may name its own folders (`configureNodeTools`) after resolving. */
    get confinement(): Confinement {
      if (declared) return 'sandbox';
      return runsInProcess(context.skillDir) ? 'in-process' : 'none';
    },
    async run(args: Record<string, unknown>, options: RunOptions = {}): Promise<RunResult> {
      // Checked first: a bad option refuses the call before the module is imported (its top-level code runs).
      const limits = limitsOf(options);
      const sandbox = sandboxRequest(context.settings, options, context.skillDir);
      if (sandbox && (declared || !runsInProcess(context.skillDir))) {
        const real = await realInside(context.skillDir, file, where);
        return runNodeChild(
          {
            file: real,
            modulePath,
            exportName,
            where,
            args: withDefaults(args, context.schema),
            cwd: options.cwd ?? context.skillDir,
            sandbox,
          },
          limits,
          options,
        );
      }
      // The call's code — the module's first import included — runs in a scope of its own, so that a failure it
      // leaves unhandled (a rejected promise, a throw from a timer) is this call's, not the process's end.
      const scope = new NodeCallScope(where, file);
      const real = await realInside(context.skillDir, file, where);
      const version = await moduleVersion(real);
      if (loaded?.version !== version) {
        const loading = scope.run(() => load(real, version));
        const current = { version, fn: loading };
        loaded = current;
        loading.catch(() => {
          if (loaded === current) loaded = undefined; // a fixed file can be loaded on the next call
        });
      }
      const fn = await loaded.fn;
      const cwd = options.cwd ?? context.skillDir;
      const extra = {
        cwd,
        env: { ...options.env },
        ...(options.files ? { files: options.files } : {}),
        ...(sandbox ? { sandbox: sandboxView({ cwd, env: childEnv(options.env), ...sandbox }) } : {}),
      };
      const value = await callWithLimits(
        fn,
        withDefaults(args, context.schema),
        extra,
        limits.timeoutMs,
        options.signal,
        scope,
      );
      return resultText(value, limits.maxOutputBytes, where, limits.maxImageBytes);
    },
  };
}

/**
 * The file's version as its last change left it (modification time and size): a tool's module edited while birdie
 * runs (the REPL, `birdie mcp`, `birdie serve`) is imported again at its next call. Only the module the entrypoint
 * names: what it imports itself stays as Node first loaded it.
 */
async function moduleVersion(real: string): Promise<string> {
  const info = await stat(real);
  return `${Math.trunc(info.mtimeMs)}-${info.size}`;
}

function sandboxView(request: Parameters<typeof sandboxAccess>[0]): NonNullable<NodeToolContext['sandbox']> {
  const access = sandboxAccess(request);
  return { access, hidden: access.hidden };
}

function callWithLimits(
  fn: ToolFunction,
  args: Record<string, unknown>,
  extra: Omit<NodeToolContext, 'signal'>,
  timeoutMs: number,
  outer: AbortSignal | undefined,
  scope: NodeCallScope,
): Promise<unknown> {
  const { where } = scope;
  if (outer?.aborted)
    return Promise.reject(new EntrypointError('aborted', `${where} was cancelled`, { cause: outer.reason }));
  const controller = new AbortController();
  return new Promise((resolve, reject) => {
    const stop = (error: EntrypointError) => {
      done();
      controller.abort(error);
      reject(error);
    };
    const timer = setTimeout(
      () => stop(new EntrypointError('timeout', `${where} timed out after ${seconds(timeoutMs)}`)),
      timeoutMs,
    );
    const onAbort = () =>
      stop(new EntrypointError('aborted', `${where} was cancelled`, { cause: outer?.reason }));
    outer?.addEventListener('abort', onAbort, { once: true });
    const done = () => {
      clearTimeout(timer);
      outer?.removeEventListener('abort', onAbort);
      scope.failWith(undefined);
    };
    // A failure the tool's code left unhandled while the call runs (the application hands it over, see
    // `claimStrayFailure`) ends the call as a throw would.
    scope.failWith((error) => {
      done();
      controller.abort(error);
      reject(error);
    });
    let pending: unknown;
    try {
      pending = scope.run(() => fn(args, { ...extra, signal: controller.signal }));
    } catch (cause) {
      done();
      return reject(failure(cause, where));
    }
    Promise.resolve(pending).then(
      (value) => {
        // Not before the rejections of the call's last steps were reported (Node does so once the microtasks are
        // done, before the event loop's next check phase): a promise the tool forgot to await fails the call it
        // belongs to, rather than being logged after a result the model would trust.
        setImmediate(() => {
          done();
          resolve(value);
        });
      },
      (cause) => {
        done();
        reject(failure(cause, where));
      },
    );
  });
}

function failure(cause: unknown, where: string): EntrypointError {
  if (cause instanceof EntrypointError) return cause;
  return callFailed(where, cause instanceof Error ? `${cause.name}: ${cause.message}` : String(cause), cause);
}
