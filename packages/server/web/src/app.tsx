import type { FunctionComponent } from 'preact';
import { useCallback, useEffect, useRef, useState } from 'preact/hooks';
import { tokenStore } from './api.js';
import { focusLost } from './focus.js';
import { SignIn } from './signin.js';

type ShellProps = { token: string; onSignOut(reason?: string): void };

export function App() {
  const [token, setToken] = useState(tokenStore.get);
  // Why the app signed out by itself (the server refused the token), shown on the sign-in form.
  const [reason, setReason] = useState<string>();
  const [Shell, setShell] = useState<FunctionComponent<ShellProps>>();
  // Set by signing in, until the screen signed into has taken the focus the sign-in form took with it.
  const arriving = useRef(false);
  const signIn = useCallback((t: string) => {
    arriving.current = true;
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
  // The form went with the focus, which fell to the page: the screen signed into takes it on its main region, unless
  // the screen placed it already (a chat's message box; child effects run first). A reload moves nothing.
  useEffect(() => {
    if (!token || !Shell || !arriving.current) return;
    arriving.current = false;
    if (focusLost()) document.getElementById('main')?.focus();
  }, [token, Shell]);
  if (!token) return <SignIn onSignedIn={signIn} reason={reason} />;
  if (!Shell) return <p class="loading">Loading…</p>;
  return <Shell token={token} onSignOut={signOut} />;
}
