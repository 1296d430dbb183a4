import { mkdir, readFile, rename, writeFile } from 'node:fs/promises';
import { dirname } from 'node:path';

/** What a chat (or a Slack thread) is bound to: a session of a birdie user, and the model `/model` chose. */
export interface ChatEntry {
  sessionId: string;
  userId: string;
  model?: string;
}

interface BookData {
  chats: Record<string, ChatEntry>;
  /** Every session a chat has had (`/new` makes more): a task scheduled in any of them reports to that chat. */
  sessions: Record<string, string>;
  /** Per birdie user: the newest run already looked at for task reports. */
  reported: Record<string, number>;
  /** Strangers already refused, as `<chat key>:<platform user id>`: one refusal each, across restarts. */
  refused: string[];
}

/**
 * The channels' own record, one JSON file beside the store (`~/.birdie/channels.json`): chat → session, session →
 * chat, and how far task reports got. Written whole (temp file, then rename) after each change, so a restart finds
 * every chat's session, and the session in the store keeps its pending approvals.
 */
export class ChatBook {
  private data: BookData = { chats: {}, sessions: {}, reported: {}, refused: [] };
  private writing: Promise<void> = Promise.resolve();

  private constructor(private readonly path: string) {}

  static async open(path: string): Promise<ChatBook> {
    const book = new ChatBook(path);
    try {
      const parsed = JSON.parse(await readFile(path, 'utf8')) as Partial<BookData>;
      book.data = {
        chats: parsed.chats ?? {},
        sessions: parsed.sessions ?? {},
        reported: parsed.reported ?? {},
        refused: parsed.refused ?? [],
      };
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
    }
    return book;
  }

  chat(key: string): ChatEntry | undefined {
    return this.data.chats[key];
  }

  /** Whether the place with this key has a session: its own, or a user's in it (`<key>:<user>`). */
  hasChatsAt(key: string): boolean {
    return key in this.data.chats || Object.keys(this.data.chats).some((k) => k.startsWith(`${key}:`));
  }

  /** The chat a session belongs to (its current one or an earlier one). */
  chatOf(sessionId: string): string | undefined {
    return this.data.sessions[sessionId];
  }

  async setChat(key: string, entry: ChatEntry): Promise<void> {
    this.data.chats[key] = entry;
    this.data.sessions[entry.sessionId] = key;
    await this.save();
  }

  wasRefused(who: string): boolean {
    return this.data.refused.includes(who);
  }

  async setRefused(who: string): Promise<void> {
    if (this.wasRefused(who)) return;
    this.data.refused.push(who);
    await this.save();
  }

  reportedUpTo(userId: string): number | undefined {
    return this.data.reported[userId];
  }

  async setReportedUpTo(userId: string, runId: number): Promise<void> {
    this.data.reported[userId] = runId;
    await this.save();
  }

  /** Resolves once every change made so far is on disk (a failed write included: it was reported to its caller). */
  settled(): Promise<void> {
    return this.writing.catch(() => undefined);
  }

  private save(): Promise<void> {
    const text = `${JSON.stringify(this.data, null, 2)}\n`;
    // After a failed write (its caller heard of it) the next change is still written: the chain goes on.
    this.writing = this.settled().then(async () => {
      await mkdir(dirname(this.path), { recursive: true, mode: 0o700 });
      const temp = `${this.path}.${process.pid}.tmp`;
      await writeFile(temp, text, { mode: 0o600 });
      await rename(temp, this.path);
    });
    return this.writing;
  }
}
