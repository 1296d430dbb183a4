/** An MCP progress notification, as one line of a call's live output. */
export interface ProgressNotice {
  progress: number;
  total?: number;
  message?: string;
}

/** One line a notification: its message when the server sends one, with how far along it is. */
export function progressLine(notice: ProgressNotice): string {
  const along = notice.total !== undefined ? `${notice.progress} of ${notice.total}` : `${notice.progress}`;
  const message = notice.message?.replace(/\s+/g, ' ').trim();
  return message ? `${message} (${along})\n` : `progress ${along}\n`;
}
