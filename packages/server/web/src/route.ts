import { useEffect, useState } from 'preact/hooks';

/** The app's place, in the URL's hash (`#/s/ID`, `#/runs`): never the token. */
export type Route =
  | { name: 'sessions'; session?: string; panel?: 'skills' }
  | { name: 'new' }
  | { name: 'runs'; run?: number }
  | { name: 'tasks' };

/** A part of the hash decoded; one with a malformed escape (typed or pasted) as it is written, never a throw. */
function decoded(part: string): string {
  try {
    return decodeURIComponent(part);
  } catch {
    return part;
  }
}

export function parseRoute(hash: string): Route {
  const parts = hash.replace(/^#\/?/, '').split('/').map(decoded);
  if (parts[0] === 's' && parts[1])
    return {
      name: 'sessions',
      session: parts[1],
      ...(parts[2] === 'skills' ? { panel: 'skills' as const } : {}),
    };
  if (parts[0] === 'new') return { name: 'new' };
  if (parts[0] === 'runs')
    return parts[1] && /^\d+$/.test(parts[1]) ? { name: 'runs', run: Number(parts[1]) } : { name: 'runs' };
  if (parts[0] === 'tasks') return { name: 'tasks' };
  return { name: 'sessions' };
}

export const hrefOf = {
  session: (id: string) => `#/s/${encodeURIComponent(id)}`,
  skills: (id: string) => `#/s/${encodeURIComponent(id)}/skills`,
  run: (id: number) => `#/runs/${id}`,
};

export function useRoute(): Route {
  const [route, setRoute] = useState(() => parseRoute(location.hash));
  useEffect(() => {
    const update = () => setRoute(parseRoute(location.hash));
    addEventListener('hashchange', update);
    return () => removeEventListener('hashchange', update);
  }, []);
  return route;
}
