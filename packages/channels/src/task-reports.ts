import type { RunRecord } from '@birdie/store';
import { DIED_WITHOUT_HOLDER, withoutHolder } from '@birdie/store/errors';
import type { ChannelCore } from './channel-core.js';
import type { ChatPlace } from './chat.js';

/** The chat place a book key names (`telegram_<chat>`, `slack_<channel>_<thread>`, each maybe `:<user>`). */
export function placeOfKey(key: string): ChatPlace {
  const [, chatId = '', threadId] = (key.split(':')[0] ?? '').split('_');
  return { chatId, ...(threadId ? { threadId } : {}) };
}

/**
 * Posts the result of each scheduled task run back into the chat whose session scheduled it: the task's run names the
 * run that made the task (`parentRunId`), whose session the chat book knows. Whoever runs the tasks (`birdie start`,
 * another worker), this finds their runs in the store. Each user's runs are read from where the last look ended;
 * the first look starts at the newest run, so history is never replayed.
 */
export class TaskReports {
  private timer: NodeJS.Timeout | undefined;
  private looking: Promise<void> = Promise.resolve();

  constructor(
    private readonly core: ChannelCore,
    private readonly everyMs: number,
  ) {}

  start(): void {
    const tick = () => {
      this.looking = this.looking.then(() => this.lookNow());
      this.timer = setTimeout(tick, this.everyMs);
      this.timer.unref();
    };
    tick();
  }

  async stop(): Promise<void> {
    clearTimeout(this.timer);
    await this.looking;
  }

  /** One look at every allowed user's new runs. */
  async lookNow(): Promise<void> {
    const users = [...new Set(Object.values(this.core.options.allow))];
    for (const user of users) {
      try {
        await this.lookAt(user);
      } catch (error) {
        this.core.options.log(
          `task reports of ${user}: ${error instanceof Error ? error.message : String(error)}`,
        );
      }
    }
  }

  private async lookAt(user: string): Promise<void> {
    const { book, platform } = this.core.options;
    const { store } = this.core.rt;
    const cursorKey = `${platform}:${user}`;
    const cursor = book.reportedUpTo(cursorKey);
    const runs = await store.runs.list({
      userId: user,
      ...(cursor !== undefined ? { afterId: cursor } : {}),
      limit: 100,
    });
    if (cursor === undefined) {
      await book.setReportedUpTo(cursorKey, runs[0]?.id ?? 0);
      return;
    }
    let upTo = cursor;
    for (const run of [...runs].sort((a, b) => a.id - b.id)) {
      if (run.status === 'running') break; // looked at again next time
      upTo = run.id;
      const key = await this.chatOf(run, user);
      if (key) await this.core.say(placeOfKey(key), reportText(run));
    }
    if (upTo !== cursor) await book.setReportedUpTo(cursorKey, upTo);
  }

  private async chatOf(run: RunRecord, user: string): Promise<string | undefined> {
    if (!run.trigger?.startsWith('task ') || run.parentRunId === undefined) return undefined;
    const parent = await this.core.rt.store.runs.get(run.parentRunId, user);
    const key = parent ? this.core.options.book.chatOf(parent.sessionId) : undefined;
    return key?.startsWith(`${this.core.options.platform}_`) ? key : undefined;
  }
}

export function reportText(run: RunRecord): string {
  const what = run.trigger ?? 'a scheduled task';
  const body =
    run.status === 'ok' || run.answer
      ? (run.answer ?? '(no answer)')
      : run.status === 'died'
        ? // A chat is its users': said without the process and the machine that ran it (the run log has them).
          diedText(withoutHolder('died', run.error ?? DIED_WITHOUT_HOLDER))
        : `⚠️ it ended ${run.status}${run.error ? `: ${run.error}` : ''}`;
  return `⏰ **${what}**\n\n${body}`;
}

/** `died: …` reads "⚠️ it died: …", not "it ended died: died: …". */
const diedText = (error: string) =>
  error.startsWith('died: ') ? `⚠️ it ${error}` : `⚠️ it ended died: ${error}`;
