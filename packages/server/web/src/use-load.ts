import { useEffect, useState } from 'preact/hooks';

/** Loads `load()` whenever `deps` change: `{ data, error }`, the older answer kept while the next one loads. */
export function useLoad<T>(
  load: () => Promise<T>,
  deps: unknown[],
): { data?: T; error?: string; reload(): void } {
  const [state, setState] = useState<{ data?: T; error?: string }>({});
  const [tick, setTick] = useState(0);
  useEffect(() => {
    let live = true;
    load().then(
      (data) => live && setState({ data }),
      (error: unknown) =>
        live && setState((s) => ({ ...s, error: String(error instanceof Error ? error.message : error) })),
    );
    return () => {
      live = false;
    };
  }, [...deps, tick]);
  return { ...state, reload: () => setTick((t) => t + 1) };
}
