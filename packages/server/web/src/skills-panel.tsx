import { useState } from 'preact/hooks';
import type { Api } from './api.js';
import { hrefOf } from './route.js';
import { useLoad } from './use-load.js';

/** A session's skills: what the operator's policy lets it use, each on or off, with its description and tools. */
export function SkillsPanel({ api, session }: { api: Api; session: string }) {
  const skills = useLoad(() => api.skills(), [api]);
  const detail = useLoad(() => api.session(session), [api, session]);
  const [error, setError] = useState<string>();
  const grants = detail.data?.grants ?? { enabled: [], disabled: [] };
  const isOn = (name: string, byDefault: boolean) =>
    grants.disabled.includes(name) ? false : grants.enabled.includes(name) ? true : byDefault;
  const toggle = async (name: string, on: boolean) => {
    setError(undefined);
    try {
      await api.setSkills(session, on ? { enable: [name], disable: [] } : { enable: [], disable: [name] });
      detail.reload();
    } catch (failure) {
      setError(failure instanceof Error ? failure.message : String(failure));
    }
  };
  return (
    <main id="main" tabIndex={-1} class="skills">
      <h1>Skills of this chat</h1>
      <p>
        <a href={hrefOf.session(session)}>Back to the chat</a>
      </p>
      {(error || skills.error) && (
        <p role="alert" class="error">
          {error || skills.error}
        </p>
      )}
      <ul>
        {(skills.data?.skills ?? []).map((s) => (
          <li key={s.name} class="skill">
            <div class="check">
              <input
                type="checkbox"
                id={`use-${s.name}`}
                checked={isOn(s.name, s.enabledByDefault)}
                onChange={(e) => toggle(s.name, e.currentTarget.checked)}
              />
              <label for={`use-${s.name}`}>
                <strong>{s.name}</strong>
              </label>
            </div>
            <p class="hint">{s.description}</p>
            {s.tools.length > 0 && (
              <ul class="tools">
                {s.tools.map((t) => (
                  <li key={t.name}>
                    <code>{t.name}</code> {t.description}
                    {t.approval === 'always' ? ' (asks first)' : ''}
                  </li>
                ))}
              </ul>
            )}
          </li>
        ))}
      </ul>
    </main>
  );
}
