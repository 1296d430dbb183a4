import { runsInProcess } from './node-placement.js';
import { sandboxMode, sandboxNetworkAllowed } from './sandbox.js';
import type { Confinement, Entrypoint, RunOptions, ToolSettings } from './types.js';

/** Schemes whose calls are (or, for `node:`, become) child processes that the sandbox can confine. */
const SANDBOXABLE = new Set(['bash', 'python', 'node']);

/** The sandbox request of a `bash:`/`python:`/`node:` call, or undefined when it runs unconfined. */
export function sandboxRequest(
  settings: ToolSettings | undefined,
  options: RunOptions,
  skillDir: string,
): { network: boolean; skillDir: string } | undefined {
  const wanted = settings?.sandbox === true || options.sandbox === true || sandboxMode().mode === 'always';
  if (!wanted) return undefined;
  return { network: settings?.network === true && sandboxNetworkAllowed(), skillDir };
}

/**
 * Where calls of an entrypoint run now: `container` for `container:`; `in-process` for a `node:` tool of the
 * application's own folders (`configureNodeTools`) that does not declare `sandbox: true`; `sandbox` for a
 * `bash:`/`python:`/`node:` tool that declared `sandbox: true`, or any of them while the sandbox mode is `always` (or
 * with `options.sandbox`); else `none`. Takes a built entrypoint or the entrypoint string, the tool's settings and
 * (for a string `node:` entrypoint) `options.skillDir` (nothing is resolved or run), so an application can show it
 * for every tool (`/info`, `birdie tool`).
 */
export function confinementOf(
  entrypoint: Entrypoint | string,
  settings?: ToolSettings,
  options: Pick<RunOptions, 'sandbox'> & { skillDir?: string } = {},
): Confinement {
  const built = typeof entrypoint === 'string' ? undefined : entrypoint;
  const scheme = built?.scheme ?? /^\s*([a-z][a-z0-9+.-]*):/.exec(entrypoint as string)?.[1] ?? '';
  if (scheme === 'container') return 'container';
  if (!SANDBOXABLE.has(scheme)) return 'none';
  if (built?.confinement === 'sandbox' || built?.confinement === 'in-process') return built.confinement;
  const declared = settings?.sandbox === true;
  if (!built && scheme === 'node' && !declared && options.skillDir && runsInProcess(options.skillDir)) {
    return 'in-process';
  }
  return sandboxRequest(settings, options, '') ? 'sandbox' : 'none';
}
