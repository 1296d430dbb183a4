import { titleProblem } from '@birdie/store/title';
import { useState } from 'preact/hooks';
import type { Api } from './api.js';
import { hrefOf } from './route.js';
import { useLoad } from './use-load.js';

/** A new session: an agent and skills, among what the operator's policy allows (what the API lists). */
export function NewSession({ api, onCreated }: { api: Api; onCreated(): void }) {
  const skills = useLoad(() => api.skills(), [api]);
  // `GET /v1/agents` may be missing on an older server: then the default agent only.
  const agents = useLoad(() => api.agents().catch(() => ({ agents: [] })), [api]);
  const [title, setTitle] = useState('');
  const [agent, setAgent] = useState('');
  const [chosen, setChosen] = useState<Record<string, boolean>>({});
  const [error, setError] = useState<string>();
  const isOn = (name: string, byDefault: boolean) => chosen[name] ?? byDefault;
  const submit = async (e: Event) => {
    e.preventDefault();
    setError(undefined);
    // Counted as the server counts it (code points): an input's maxLength counts UTF-16 units, half as many emoji.
    const problem = title.trim() ? titleProblem(title.trim()) : undefined;
    if (problem) {
      setError(problem);
      return;
    }
    try {
      const enable = (skills.data?.skills ?? [])
        .filter((s) => !s.enabledByDefault && isOn(s.name, false))
        .map((s) => s.name);
      const session = await api.createSession({
        ...(title.trim() ? { title: title.trim() } : {}),
        ...(agent ? { agent } : {}),
        ...(enable.length ? { enable } : {}),
      });
      const disable = (skills.data?.skills ?? [])
        .filter((s) => s.enabledByDefault && !isOn(s.name, true))
        .map((s) => s.name);
      if (disable.length) await api.setSkills(session.id, { enable: [], disable });
      onCreated();
      location.hash = hrefOf.session(session.id);
    } catch (failure) {
      setError(failure instanceof Error ? failure.message : String(failure));
    }
  };
  return (
    <main id="main" tabIndex={-1} class="new-session">
      <h1>New chat</h1>
      <form onSubmit={submit}>
        <label for="new-title">Title (optional)</label>
        <input id="new-title" value={title} onInput={(e) => setTitle(e.currentTarget.value)} />
        <label for="new-agent">Agent</label>
        <select id="new-agent" value={agent} onChange={(e) => setAgent(e.currentTarget.value)}>
          <option value="">Default</option>
          {(agents.data?.agents ?? []).map((a) => (
            <option key={a.name} value={a.name}>
              {a.name}
            </option>
          ))}
        </select>
        <fieldset>
          <legend>Skills</legend>
          {skills.error && (
            <p role="alert" class="error">
              {skills.error}
            </p>
          )}
          {(skills.data?.skills ?? []).map((s) => (
            <div class="check" key={s.name}>
              <input
                type="checkbox"
                id={`skill-${s.name}`}
                checked={isOn(s.name, s.enabledByDefault)}
                onChange={(e) => setChosen({ ...chosen, [s.name]: e.currentTarget.checked })}
              />
              <label for={`skill-${s.name}`}>
                <strong>{s.name}</strong> <span class="hint">{s.description}</span>
              </label>
            </div>
          ))}
        </fieldset>
        <button type="submit">Start</button>
        {error && (
          <p role="alert" class="error">
            {error}
          </p>
        )}
      </form>
    </main>
  );
}
