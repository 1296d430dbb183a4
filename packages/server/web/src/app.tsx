import type { FunctionComponent } from 'preact';
import { useCallback, useEffect, useState } from 'preact/hooks';
import { tokenStore } from './api.js';
import { SignIn } from './signin.js';

type ShellProps = { token: string; onSignOut(reason?: string): void };

export function App() {
  const [token, setToken] = useState(tokenStore.get);
  // Why the app signed out by itself (the server refused the token), shown on the sign-in form.
  const [reason, setReason] = useState<string>();
  const [Shell, setShell] = useState<FunctionComponent<ShellProps>>();
  const signIn = useCallback((t: string) => {
    tokenStore.set(t);
    setReason(undefined);
    setToken(t);
  }, []);
  const signOut = useCallback((why?: string) => {
    tokenStore.clear();
    setReason(why);
    setToken(null);
    // Signed out by the server (a revoked token): the place stays, so signing in again goes back to it. Signed out by
    // the user: the next one starts at the list.
    if (why === undefined) location.hash = '';
  }, []);
  // Loaded once signed in (or while the sign-in form is shown, so it is there when needed).
  useEffect(() => {
    import('./shell.js').then((m) => setShell(() => m.Shell));
  }, []);
  if (!token) return <SignIn onSignedIn={signIn} reason={reason} />;
  if (!Shell) return <p class="loading">Loading…</p>;
  return <Shell token={token} onSignOut={signOut} />;
}
