import type { FunctionComponent } from 'preact';
import { useCallback, useEffect, useState } from 'preact/hooks';
import { tokenStore } from './api.js';
import { SignIn } from './signin.js';

type ShellProps = { token: string; onSignOut(): void };

export function App() {
  const [token, setToken] = useState(tokenStore.get);
  const [Shell, setShell] = useState<FunctionComponent<ShellProps>>();
  const signIn = useCallback((t: string) => {
    tokenStore.set(t);
    setToken(t);
  }, []);
  const signOut = useCallback(() => {
    tokenStore.clear();
    setToken(null);
    location.hash = '';
  }, []);
  // Loaded once signed in (or while the sign-in form is shown, so it is there when needed).
  useEffect(() => {
    import('./shell.js').then((m) => setShell(() => m.Shell));
  }, []);
  if (!token) return <SignIn onSignedIn={signIn} />;
  if (!Shell) return <p class="loading">Loading…</p>;
  return <Shell token={token} onSignOut={signOut} />;
}
