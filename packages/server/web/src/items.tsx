import { useEffect, useState } from 'preact/hooks';
import type { Item } from './chat-state.js';
import { MarkdownView } from './markdown-view.js';
import { shown, shownJson } from './shown.js';

type Tool = Extract<Item, { kind: 'tool' }>;

function seconds(ms: number): string {
  return ms < 10_000 ? `${(ms / 1000).toFixed(1)} s` : `${Math.round(ms / 1000)} s`;
}

/** A running call's clock: ticks while it runs, then shows the server's duration. */
function Elapsed({ tool }: { tool: Tool }) {
  const [now, setNow] = useState(Date.now());
  const running = tool.ok === undefined && tool.startedAt > 0;
  useEffect(() => {
    if (!running) return;
    const timer = setInterval(() => setNow(Date.now()), 500);
    return () => clearInterval(timer);
  }, [running]);
  if (tool.durationMs !== undefined) return <span class="elapsed">{seconds(tool.durationMs)}</span>;
  if (running) return <span class="elapsed">{seconds(Math.max(0, now - tool.startedAt))}</span>;
  return null;
}

/** A tool call as a collapsible block: arguments, live output, outcome; a `task` call holds its subagent's run. */
export function ToolBlock({ tool }: { tool: Tool }) {
  const state =
    tool.ok === undefined ? (tool.startedAt > 0 ? 'running' : 'not run') : tool.ok ? 'ok' : 'failed';
  return (
    <details
      class={`tool tool-${state.replace(' ', '-')}`}
      open={tool.name === 'task' || state === 'running'}
    >
      <summary>
        <span class="tool-name">{shown(tool.name)}</span> <span class="tool-state">{state}</span>{' '}
        <Elapsed tool={tool} />
      </summary>
      <div class="tool-body">
        <h3 class="sr-only">Arguments</h3>
        <pre class="args">{shownJson(tool.args)}</pre>
        {tool.children.length > 0 && (
          <section class="subagent" aria-label={`${shown(tool.name)} run`}>
            {tool.children.map((child) => (
              <ItemView key={child.key} item={child} />
            ))}
          </section>
        )}
        {tool.output && (
          <>
            <h3 class="sr-only">Output</h3>
            <pre class="output">{tool.output}</pre>
          </>
        )}
        {tool.truncated && <p class="hint">Output truncated.</p>}
      </div>
    </details>
  );
}

/** One item of the chat, as the user sees it. Model and tool text is untrusted: text nodes or safe Markdown only. */
export function ItemView({ item }: { item: Item }) {
  switch (item.kind) {
    case 'user':
      return (
        <div class="msg user">
          <span class="sr-only">You: </span>
          <p class="plain">{item.text}</p>
        </div>
      );
    case 'assistant':
      return (
        <div class="msg assistant" aria-busy={!item.final}>
          <MarkdownView text={item.text} final={item.final} />
          {item.cancelled && <p class="hint">(cut short)</p>}
        </div>
      );
    case 'tool':
      return <ToolBlock tool={item} />;
    case 'notice':
      return <p class={`notice ${item.tone}`}>{item.text}</p>;
  }
}
