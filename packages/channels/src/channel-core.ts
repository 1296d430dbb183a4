import type { ApprovalDecision, ApprovalRequest } from '@birdie/graph';
import { fromSubagent } from '@birdie/graph/event-json';
import type { ServeSetup } from '@birdie/runtime/server-runtime';
import { createSession } from '@birdie/runtime/session-start';
import { executeTurn, type TurnInput, type TurnResult } from '@birdie/runtime/turn';
import { isApiError, Workspaces } from '@birdie/server';
import type { Session } from '@birdie/store';
import { withoutHolder } from '@birdie/store/errors';
import {
  approvalButtons,
  approvalOwner,
  approvalText,
  isApprovalData,
  pressedDecision,
} from './approval-buttons.js';
import type { ButtonPress, ChatOutput, ChatPlace, IncomingMessage } from './chat.js';
import type { ChatBook, ChatEntry } from './chat-book.js';
import { runCommand } from './commands.js';
import { downloadWithin } from './download-within.js';
import { isChannelError } from './errors.js';
import { StreamedReply } from './streamed-reply.js';
import type { Transcriber } from './voice.js';
import { saveFiles } from './workspace-files.js';

export type Platform = 'telegram' | 'slack';

/** What a channel's core runs on: the runtime as `birdie serve` opens it (the operator's policy, the workspaces). */
export type ChannelSetup = Pick<ServeSetup, 'rt' | 'approval' | 'workspaces'>;

export interface ChannelCoreOptions {
  platform: Platform;
  setup: ChannelSetup;
  /** Platform user id → birdie user. */
  allow: Readonly<Record<string, string>>;
  output: ChatOutput;
  book: ChatBook;
  /** One line per thing worth logging; never given a secret. */
  log(line: string): void;
  transcriber?: Transcriber;
  maxFileBytes: number;
}

/**
 * How long a delivery's keys are kept: Slack retries within the hour, Telegram keeps an undelivered update for 24
 * hours, and a redelivery to another worker comes at once.
 */
export const DELIVERY_TTL_MS = 24 * 60 * 60 * 1000;

export const REFUSAL =
  "Sorry, I only talk to people my operator has allowed. If you should be one of them, ask them to add your user id to birdie's allow list.";

/**
 * The channel-neutral half of a chat front end: a chat (or a Slack thread) is a session of the birdie user the allow
 * list names; strangers get one refusal and nothing else (no model call); turns go through the runtime's one turn
 * path and stream into one message; approvals become buttons, decided by the session's owner only.
 */
export class ChannelCore {
  private readonly queues = new Map<string, Promise<void>>();
  private readonly running = new Map<string, AbortController>();
  /** Decisions pressed so far for a session's pending calls, until every one of them has its decision. */
  private readonly decided = new Map<string, Record<string, ApprovalDecision>>();
  private readonly workspaces: Workspaces;

  constructor(readonly options: ChannelCoreOptions) {
    this.workspaces = new Workspaces(options.setup.workspaces);
  }

  get rt() {
    return this.options.setup.rt;
  }

  keyOf(place: ChatPlace): string {
    return [this.options.platform, place.chatId, ...(place.threadId ? [place.threadId] : [])].join('_');
  }

  /**
   * The book key of a user's session in a place: in a group or channel each allowed user has their own
   * (`<place key>:<platform user id>`), so several people can talk to the bot in one chat or thread; a private chat
   * is its place's.
   */
  sessionKey(place: ChatPlace, userId: string, group: boolean): string {
    return group ? `${this.keyOf(place)}:${userId}` : this.keyOf(place);
  }

  /** Whether anyone has a session in this place (a Slack thread the bot is in). */
  knows(place: ChatPlace): boolean {
    return this.options.book.hasChatsAt(this.keyOf(place));
  }

  /** Handles one incoming message; resolves once it is queued (turns of one chat run one after another). */
  async onMessage(message: IncomingMessage): Promise<void> {
    if (message.group && !message.mentioned) return;
    const user = this.options.allow[message.userId];
    if (user === undefined) return this.refuse(message.place, this.keyOf(message.place), message.userId);
    if (!(await this.firstDelivery(message))) return;
    try {
      await this.queueMessage(message, user);
    } catch (error) {
      // Nothing was queued: forget the claim so that the platform's retry of this delivery is handled, not dropped.
      const keys = message.deliveryKeys ?? [];
      if (keys.length > 0) await this.rt.store.deliveries.release(keys).catch(() => undefined);
      throw error;
    }
  }

  private async queueMessage(message: IncomingMessage, user: string): Promise<void> {
    const key = this.sessionKey(message.place, message.userId, message.group);
    if (message.group) await this.adoptGroupSession(message.place, key, user);
    const command = /^\/([a-z]+)(?:@\S+)?(?:\s+([\s\S]*))?$/i.exec(message.text.trim());
    if (command?.[1]?.toLowerCase() === 'cancel') return this.cancel(message.place, key, user);
    await this.enqueue(key, async () => {
      const entry = await this.entryFor(key, user);
      if (entry.userId !== user) {
        await this.say(
          message.place,
          `This chat's session belongs to another birdie user (${entry.userId}).`,
        );
        return;
      }
      if (command)
        return runCommand(this, message.place, key, entry, command[1] as string, (command[2] ?? '').trim());
      await this.converse(message, key, entry);
    });
  }

  /** Handles a button press (an approval): only the session's owner decides, a stale button says so. */
  async onPress(press: ButtonPress): Promise<void> {
    if (!isApprovalData(press.data)) return press.answer('This button does nothing any more.');
    // A button names the platform user whose group session asked (none: a private chat's, or an older button).
    const owner = approvalOwner(press.data);
    const key = owner ? `${this.keyOf(press.place)}:${owner}` : this.keyOf(press.place);
    const entry = this.options.book.chat(key);
    const user = this.options.allow[press.userId];
    if (!entry || user !== entry.userId || (owner !== undefined && owner !== press.userId)) {
      this.options.log(`${key}: approval press by ${press.userId} refused (not the session's owner)`);
      return press.answer("Only this session's owner can decide this.");
    }
    await this.enqueue(key, async () => {
      const session = await this.rt.store.sessions.get(entry.sessionId, entry.userId);
      const pending = session
        ? (await this.rt.agent.getState(session.id, { recent: true })).pendingApprovals
        : [];
      const pressed = pressedDecision(press.data, pending);
      if (!session || !pressed) {
        await press.answer('This call is already decided.');
        return;
      }
      const decisions = { ...this.decided.get(session.id), [pressed.request.id]: pressed.decision };
      await press.answer(`${pressed.label}: ${pressed.request.tool}`);
      await this.options.output.edit(
        press.place,
        press.messageId,
        `${approvalText(pressed.request)}\n\n_${pressed.label}_`,
      );
      this.options.log(
        `${key}: ${pressed.request.tool} (${pressed.request.id}) ${pressed.label.toLowerCase()}`,
      );
      if (pending.some((r) => !Object.hasOwn(decisions, r.id))) {
        this.decided.set(session.id, decisions);
        return;
      }
      this.decided.delete(session.id);
      await this.turn(press.place, key, entry, session, { decisions });
    });
  }

  /** Waits for every queued message and turn (tests, and a graceful stop). */
  async idle(): Promise<void> {
    while (this.queues.size > 0) await Promise.all([...this.queues.values()]);
  }

  /** Cancels every running turn. */
  cancelAll(): void {
    for (const controller of this.running.values()) controller.abort();
  }

  async say(place: ChatPlace, markdown: string): Promise<void> {
    await this.options.output.send(place, markdown);
  }

  /** The chat's session (made on first use, or again when it was deleted); `fresh` makes a new one (`/new`). */
  async sessionFor(
    key: string,
    user: string,
    fresh = false,
  ): Promise<{ entry: ChatEntry; session: Session }> {
    const known = this.options.book.chat(key);
    if (known && !fresh) {
      const session = await this.rt.store.sessions.get(known.sessionId, known.userId);
      if (session) return { entry: known, session };
    }
    const session = await createSession(this.rt, { userId: user, perUser: true });
    const entry: ChatEntry = {
      sessionId: session.id,
      userId: user,
      ...(known?.model ? { model: known.model } : {}),
    };
    await this.options.book.setChat(key, entry);
    this.options.log(`${key}: session ${session.id} of ${user}`);
    return { entry, session };
  }

  async setModel(key: string, entry: ChatEntry, model: string | undefined): Promise<void> {
    const { model: _old, ...rest } = entry;
    await this.options.book.setChat(key, model ? { ...rest, model } : rest);
  }

  private async entryFor(key: string, user: string): Promise<ChatEntry> {
    return (await this.sessionFor(key, user)).entry;
  }

  /**
   * Claims the message's delivery keys in the store, so that a platform's second delivery of it (a retry, a
   * redelivery after a restart, or to another worker on the same store) starts no second turn.
   */
  private async firstDelivery(message: IncomingMessage): Promise<boolean> {
    const keys = message.deliveryKeys ?? [];
    if (keys.length === 0) return true;
    if (await this.rt.store.deliveries.claim(keys, DELIVERY_TTL_MS)) return true;
    this.options.log(`${this.keyOf(message.place)}: already delivered (${keys.join(', ')}), dropped`);
    return false;
  }

  private async refuse(place: ChatPlace, key: string, userId: string): Promise<void> {
    const who = `${key}:${userId}`;
    if (this.options.book.wasRefused(who)) {
      this.options.log(`${key}: ignored user ${userId} (refused before)`);
      return;
    }
    // Remembered before the refusal is sent: two messages at once, or a restart, never get a second one.
    await this.options.book.setRefused(who);
    this.options.log(`${key}: refused user ${userId} (not in the allow list)`);
    await this.say(place, REFUSAL);
  }

  private async cancel(place: ChatPlace, key: string, user: string): Promise<void> {
    const entry = this.options.book.chat(key);
    if (!entry || entry.userId !== user) return this.say(place, 'Nothing to cancel.');
    const controller = this.running.get(key);
    if (controller) {
      controller.abort();
      return;
    }
    await this.enqueue(key, async () => {
      const dropped = await this.rt.agent
        .dropPending(entry.sessionId, 'the user cancelled it in the chat.')
        .catch(() => []);
      this.decided.delete(entry.sessionId);
      await this.say(
        place,
        dropped.length > 0 ? `Cancelled ${dropped.length} waiting call(s).` : 'Nothing to cancel.',
      );
    });
  }

  private enqueue(key: string, job: () => Promise<void>): Promise<void> {
    const previous = this.queues.get(key) ?? Promise.resolve();
    const next = previous.then(job).catch((error) => {
      this.options.log(`${key}: ${error instanceof Error ? error.message : String(error)}`);
    });
    this.queues.set(key, next);
    void next.then(() => {
      if (this.queues.get(key) === next) this.queues.delete(key);
    });
    return Promise.resolve();
  }

  private async converse(message: IncomingMessage, key: string, entry: ChatEntry): Promise<void> {
    const { place } = message;
    const { session } = await this.sessionFor(key, entry.userId);
    const pending = (await this.rt.agent.getState(session.id, { recent: true })).pendingApprovals;
    if (pending.length > 0) {
      await this.say(place, 'A call is waiting for your decision above: press a button, or send /cancel.');
      return;
    }
    // The serve limits, as for a turn of `birdie serve`: checked before anything is downloaded or transcribed.
    const workspace = await this.admitted(place, session);
    if (workspace === undefined) return;
    const parts: string[] = [];
    if (message.voice) {
      const { transcriber } = this.options;
      if (!transcriber) {
        await this.say(
          place,
          "Voice messages are not available: the configured model vendor can't transcribe audio.",
        );
        return;
      }
      const audio = await downloadWithin(message.voice, this.options.maxFileBytes);
      if (typeof audio === 'string') {
        await this.say(place, `Not transcribed: the voice message (${audio}).`);
        return;
      }
      const text = await transcriber.transcribe(audio, message.voice.mime, message.voice.name);
      await this.say(place, `🎙️ _${text.trim()}_`);
      parts.push(text.trim());
    }
    if (message.text.trim() !== '') parts.push(message.text.trim());
    if (message.files?.length) {
      let saved: string[];
      let refused: string[];
      try {
        ({ saved, refused } = await saveFiles(message.files, workspace, this.options.maxFileBytes));
      } catch (error) {
        if (!isChannelError(error) || error.code !== 'unsafe-upload-folder') throw error;
        this.options.log(`${key}: upload refused (${error.code})`);
        await this.say(place, `Not saved: ${error.message}.`);
        return;
      }
      if (refused.length > 0) await this.say(place, `Not saved: ${refused.join(', ')}.`);
      if (saved.length > 0)
        parts.push(`[The user sent file(s), saved in the workspace: ${saved.join(', ')}]`);
    }
    if (parts.length === 0) return;
    await this.turn(place, key, entry, session, parts.join('\n\n'), workspace);
  }

  /**
   * The session's workspace, as `birdie serve` admits a turn into it; undefined (and the chat told why) while the
   * user's workspace holds more than `serve.limits.workspace_bytes`.
   */
  private async admitted(place: ChatPlace, session: Session): Promise<string | undefined> {
    try {
      return await this.workspaces.admit(session);
    } catch (error) {
      if (!isApiError(error, 'workspace-bytes-exceeded', 'workspace-unusable')) throw error;
      // The operator learns which folder and why (the chat is told less: no server paths).
      if (isApiError(error, 'workspace-unusable') && error.cause instanceof Error)
        this.options.log(`${this.keyOf(place)}: ${error.cause.message}`);
      await this.say(place, `Not run: ${error.message}.`);
      return undefined;
    }
  }

  private async turn(
    place: ChatPlace,
    key: string,
    entry: ChatEntry,
    session: Session,
    input: TurnInput,
    /** The workspace when the caller already admitted the turn. */
    admittedWorkspace?: string,
  ): Promise<void> {
    const cwd = admittedWorkspace ?? (await this.admitted(place, session));
    if (cwd === undefined) return;
    const controller = new AbortController();
    this.running.set(key, controller);
    const reply = new StreamedReply(this.options.output, place);
    let result: TurnResult;
    try {
      const { rt, approval } = this.options.setup;
      result = await executeTurn(rt, session, input, {
        approval,
        // The one who approves is a chat user, not the operator whose machine runs it (as for `birdie serve`).
        askRawCommands: true,
        signal: controller.signal,
        waitMs: 30_000,
        cwd,
        ...(entry.model ? { model: entry.model } : {}),
        handlers: {
          onEvent: (event) => {
            if ('agent' in event && fromSubagent(event)) return; // a subagent's words are its parent's tool result
            if (event.type === 'token') reply.append(event.text);
            else if (event.type === 'tool-start') reply.paragraph(`⚙️ \`${event.name}\``);
          },
          // Never decided here: the turn ends, the buttons answer it in a later turn (after a restart too).
          decide: async () => undefined,
        },
      });
    } finally {
      this.running.delete(key);
    }
    if (reply.current.trim() === '' && result.answer) reply.append(result.answer);
    const ending =
      result.status === 'cancelled'
        ? '_Cancelled._'
        : result.status === 'error'
          ? // A busy or taken-over session is said without the process and machine holding it.
            `⚠️ ${result.error ? withoutHolder(result.errorCode, result.error) : 'The turn failed.'}`
          : undefined;
    await reply.finish(ending);
    this.options.log(`${key}: turn ${result.runId ?? '-'} ${result.status}`);
    for (const request of result.pending ?? []) await this.askApproval(place, key, request);
  }

  private async askApproval(place: ChatPlace, key: string, request: ApprovalRequest): Promise<void> {
    const owner = key.includes(':') ? key.slice(key.indexOf(':') + 1) : undefined;
    await this.options.output.send(place, approvalText(request), approvalButtons(request, owner));
  }

  /**
   * A group's session from before sessions were per user (the place's own key): its owner goes on with it under
   * their own key, so the conversation is not lost.
   */
  private async adoptGroupSession(place: ChatPlace, key: string, user: string): Promise<void> {
    if (this.options.book.chat(key)) return;
    const legacy = this.options.book.chat(this.keyOf(place));
    if (legacy?.userId === user) await this.options.book.setChat(key, legacy);
  }
}
