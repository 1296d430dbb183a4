import { useState } from 'preact/hooks';
import { Api, ApiFailure } from './api.js';

/** Sign in with a token (`birdie tokens create --user NAME`); it is checked against the API before it is kept. */
/** `reason`: why the app signed out by itself, said until the next sign-in. */
export function SignIn({
  onSignedIn,
  reason,
}: {
  onSignedIn(token: string): void;
  reason?: string | undefined;
}) {
  const [token, setToken] = useState('');
  const [error, setError] = useState<string>();
  const [busy, setBusy] = useState(false);
  // Why the app signed out is said until the next attempt, which has its own answer.
  const [tried, setTried] = useState(false);
  const submit = async (e: Event) => {
    e.preventDefault();
    setTried(true);
    setBusy(true);
    setError(undefined);
    try {
      await new Api(token.trim()).sessions();
      onSignedIn(token.trim());
    } catch (failure) {
      setError(
        failure instanceof ApiFailure && failure.status === 401
          ? 'That token is not valid.'
          : String(failure),
      );
    } finally {
      setBusy(false);
    }
  };
  return (
    <main class="signin" id="main">
      <h1>birdie</h1>
      {reason && !tried && (
        <p role="alert" class="error">
          {reason}
        </p>
      )}
      <form onSubmit={submit} aria-describedby="signin-help">
        <label for="token">Token</label>
        <input
          id="token"
          type="password"
          autocomplete="off"
          required
          value={token}
          onInput={(e) => setToken(e.currentTarget.value)}
        />
        <p id="signin-help" class="hint">
          Ask the server's operator for one (<code>birdie tokens create --user NAME</code>). It is kept in
          this tab only.
        </p>
        <button type="submit" disabled={busy || token.trim() === ''}>
          Sign in
        </button>
        {error && (
          <p role="alert" class="error">
            {error}
          </p>
        )}
      </form>
    </main>
  );
}
