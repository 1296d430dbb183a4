import { sandboxMode, sandboxNetworkAllowed } from './sandbox.js';
import type { Confinement, Entrypoint, RunOptions, ToolSettings } from './types.js';

/** Schemes whose calls are child processes that the sandbox can confine. */
const SANDBOXABLE = new Set(['bash', 'python']);

/** The sandbox request of a `bash:`/`python:` call, or undefined when it runs unconfined. */
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
 * Where calls of an entrypoint run now: `container` for `container:`, `sandbox` for a `bash:`/`python:` tool that
 * declared `sandbox: true`, or any of them while the sandbox mode is `always` (or with `options.sandbox`), else
 * `none`. Takes a built entrypoint or the entrypoint string and the tool's settings (nothing is resolved or run), so
 * an application can show it for every tool (`/info`, `birdie tool`).
 */
export function confinementOf(
  entrypoint: Entrypoint | string,
  settings?: ToolSettings,
  options: Pick<RunOptions, 'sandbox'> = {},
): Confinement {
  const scheme =
    typeof entrypoint === 'string'
      ? (/^\s*([a-z][a-z0-9+.-]*):/.exec(entrypoint)?.[1] ?? '')
      : entrypoint.scheme;
  if (scheme === 'container') return 'container';
  if (!SANDBOXABLE.has(scheme)) return 'none';
  if (typeof entrypoint !== 'string' && entrypoint.confinement === 'sandbox') return 'sandbox';
  return sandboxRequest(settings, options, '') ? 'sandbox' : 'none';
}
