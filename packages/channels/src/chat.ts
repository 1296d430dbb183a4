// What the channel-neutral core sees of a chat platform: incoming messages and button presses, and a way to post,
// edit and split messages. Each adapter (Telegram, Slack) turns its platform's updates into these.

/** Where a message goes: a chat, and for Slack the thread in it. */
export interface ChatPlace {
  chatId: string;
  /** Slack's thread (`thread_ts`); a thread is a session there. */
  threadId?: string;
}

/** A file attached to a message, fetched only when used. */
export interface IncomingFile {
  name: string;
  /** The size the platform announced, when it did (checked before downloading). */
  size?: number;
  /**
   * The platform's answer for the file, its body not read yet: the core reads it under its byte cap and aborts
   * `signal` (which must cancel the request) as soon as the bytes pass the cap. Throws `ChannelError`.
   */
  download(signal: AbortSignal): Promise<Response>;
}

export interface IncomingMessage {
  place: ChatPlace;
  /** The sender's platform user id (matched against the allow list). */
  userId: string;
  text: string;
  /** A group or channel: answered only when the bot is mentioned (or replied to). */
  group: boolean;
  mentioned: boolean;
  voice?: IncomingFile & { mime: string };
  files?: IncomingFile[];
  /**
   * The platform's ids of this delivery (Slack's event id and the message's channel + ts, Telegram's update id):
   * a message whose keys were claimed before, by this process or another on the same store, is dropped.
   */
  deliveryKeys?: readonly string[];
}

export interface ButtonPress {
  place: ChatPlace;
  userId: string;
  /** The button's data, as the core made it. */
  data: string;
  /** The message that holds the button. */
  messageId: string;
  /** A short answer to the presser only (Telegram's callback answer, Slack's ephemeral message). */
  answer(text: string): Promise<void>;
}

export interface Button {
  text: string;
  data: string;
}

/** One platform's way to talk back, Markdown in (each converts it to its own format). */
export interface ChatOutput {
  /** The longest Markdown text one message takes (its converted form must fit the platform's limit). */
  readonly maxChars: number;
  /** The shortest time between two edits of one message, ms (the platform's rate limit). */
  readonly editEveryMs: number;
  send(place: ChatPlace, markdown: string, buttons?: Button[][]): Promise<string>;
  edit(place: ChatPlace, messageId: string, markdown: string, buttons?: Button[][]): Promise<void>;
}
