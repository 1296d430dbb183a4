import { isStoreErrorLike, storeFailure } from '@birdie/runtime/store-failure';
import type { Io } from '../io.js';
import { CliError, EXIT_OK, isFailure } from '../io.js';
import type { Style } from '@birdie/terminal/style';
import type { Completions } from './completion.js';
import type { InputResult } from './input.js';
import { Spinner } from '@birdie/terminal/spinner';
import { flushStartupProblems, type ReplState } from './state.js';
import { askPendingTrust } from './trust-question.js';

export interface LoopOptions {
  io: Io;
  style: Style;
  /** The loaded state, or how to load it (started once the first prompt is on screen). */
  boot: ReplState | (() => Promise<ReplState>);
  readInput(options: {
    signal?: AbortSignal;
    history?: string[];
    input: Io['stdin'];
    output: Io['stdout'];
    style: Style;
    hint?: string;
    completions?: Promise<Completions>;
  }): Promise<InputResult>;
  /** `birdie "prompt"`: sent as the first message, as if typed at the first prompt. */
  firstMessage?: string;
  /** Inputs of earlier sessions (oldest first) for Up/Down and Ctrl+R, and where each new one is kept. */
  history?: { entries: string[]; remember(text: string): void };
}

/**
 * What must be seen or answered before an input is handled: the start-up skill problems (once), notices of
 * background work (skill reloads), and the trust question for project skills nobody answered about yet (or whose
 * declarations changed).
 */
async function beforeInput(state: ReplState): Promise<void> {
  flushStartupProblems(state);
  if (state.notices.length)
    state.io.stdout.write(
      `${state.notices
        .splice(0)
        .map((n) => state.style('dim', n))
        .join('\n')}\n`,
    );
  await askPendingTrust(state);
}

/** Read, dispatch, repeat; returns the exit code when the user leaves. */
export async function runRepl({
  io,
  style,
  boot,
  readInput,
  firstMessage,
  history,
}: LoopOptions): Promise<number> {
  let state: ReplState | undefined = typeof boot === 'function' ? undefined : boot;
  let booting: Promise<ReplState> | undefined;
  const ready = async (): Promise<ReplState | undefined> => {
    if (state) return state;
    try {
      state = await booting!;
      return state;
    } catch (error) {
      // A config or store problem: say it once and leave, with the same code as the CLI would give. A store
      // failure keeps its advice (a locked file: what holds it and what to do), worded for the shell the user is
      // back in.
      if (isFailure(error)) throw error;
      if (isStoreErrorLike(error)) throw storeFailure(error);
      throw new CliError(error instanceof Error ? error.message : String(error));
    }
  };
  const completions = async (current: ReplState) =>
    (await import('./completion-source.js')).completionsFor(current);
  // The first prompt is on screen before the runtime exists: its Tab and `/` menu arrive once the runtime is up
  // (`booting` is set right after that prompt is shown, in the same tick).
  const completionsOnceUp = async (): Promise<Completions> => {
    await Promise.resolve();
    return completions(await booting!);
  };
  let lastInterrupt = false;
  const inputs: string[] = history?.entries ?? [];
  try {
    for (;;) {
      // A resumed session loaded before its first prompt: its skill problems and questions go above that prompt.
      if (state) await beforeInput(state);
      const stop = new AbortController();
      const typed = firstMessage;
      firstMessage = undefined;
      if (typed !== undefined) inputs.push(typed);
      if (typed !== undefined)
        io.stdout.write(`${style('dim', '›')} ${style('dim', typed.replace(/\n/g, '\n  '))}\n`);
      const reading: Promise<InputResult> =
        typed !== undefined
          ? Promise.resolve({ kind: 'text', text: typed })
          : readInput({
              signal: stop.signal,
              history: inputs,
              // Tab completion and the `/` menu, from the runtime (at the first prompt, as soon as it is loaded).
              completions: state ? completions(state) : completionsOnceUp(),
              input: io.stdin,
              output: io.stdout,
              style,
              hint: lastInterrupt ? ' press Ctrl+C again to quit' : ' ask anything, or /help',
            });
      if (!state && !booting && typeof boot === 'function') {
        // The prompt is on screen now: load LangChain, LangGraph, the store and the skills while the user types.
        booting = boot();
      }
      // A runtime that fails to load (bad config, unreadable store) ends the prompt at once instead of after Enter.
      booting?.catch(() => stop.abort());
      const input = await reading;
      if (stop.signal.aborted) await ready();
      // Stay raw between prompts: type-ahead keeps its Enter (a cooked tty would turn it into Ctrl+J) and is not echoed.
      io.stdin.setRawMode?.(true);
      if (input.kind === 'eof') break;
      if (input.kind === 'interrupt') {
        if (input.empty && lastInterrupt) break;
        lastInterrupt = input.empty;
        continue;
      }
      lastInterrupt = false;
      if (input.text.trim()) history?.remember(input.text);
      const text = input.text.trim();
      if (text === '') continue;
      if (text === '/quit' || text === '/exit') break;
      if (text === '/clear') {
        io.stdout.write('\x1b[2J\x1b[3J\x1b[H');
        continue;
      }
      let current = state;
      if (!current) {
        // Typed before the runtime finished loading: show that it is coming rather than a frozen screen.
        const spinner = new Spinner(io.stdout, style);
        spinner.start('loading skills, store and model…');
        try {
          current = await ready();
        } finally {
          spinner.stop();
        }
      }
      if (!current) break;
      // Loaded (or reloaded) while this input was typed: problems, notices and questions come before the answer.
      await beforeInput(current);
      if (text.startsWith('/')) {
        const { runSlash } = await import('./slash.js');
        if ((await runSlash(current, text)) === 'quit') break;
        continue;
      }
      const { replTurn } = await import('./turn.js');
      await replTurn(current, input.text);
    }
  } finally {
    io.stdin.setRawMode?.(false);
    if (state) {
      state.watcher?.close();
      const id = state.session.id;
      const { discardIfEmpty } = await import('@birdie/runtime/session-titles');
      // A session without an exchange (opened and left, a failed first call) does not litter the lists.
      if (!(await discardIfEmpty(state.rt, state.session))) {
        const { sessionFlags } = await import('../render/session-flags.js');
        io.stdout.write(
          `${style('dim', `session ${id} saved · resume with: birdie ${sessionFlags(io, state.rt.userId, id)}`)}\n`,
        );
      }
      await state.rt.close();
    }
  }
  return EXIT_OK;
}
