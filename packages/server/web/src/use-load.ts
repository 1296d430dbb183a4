import { useEffect, useState } from 'preact/hooks';
import { Unreachable } from './api.js';

/** How long a load that got no answer (the server down, the network gone) waits before it asks again. */
const RETRY_UNREACHABLE_MS = 5000;

/**
 * Loads `load()` whenever `deps` change: `{ data, error }`, the older answer kept while the next one loads. A load the
 * server never answered is tried again every few seconds while shown, so its error goes once the server is back
 * (a refusal of the server's is its answer: not tried again).
 */
export function useLoad<T>(
  load: () => Promise<T>,
  deps: unknown[],
): { data?: T; error?: string; reload(): void } {
  const [state, setState] = useState<{ data?: T; error?: string }>({});
  const [tick, setTick] = useState(0);
  useEffect(() => {
    let live = true;
    let retry: ReturnType<typeof setTimeout> | undefined;
    load().then(
      (data) => live && setState({ data }),
      (error: unknown) => {
        if (!live) return;
        setState((s) => ({ ...s, error: String(error instanceof Error ? error.message : error) }));
        if (error instanceof Unreachable)
          retry = setTimeout(() => setTick((t) => t + 1), RETRY_UNREACHABLE_MS);
      },
    );
    return () => {
      live = false;
      clearTimeout(retry);
    };
  }, [...deps, tick]);
  return { ...state, reload: () => setTick((t) => t + 1) };
}
