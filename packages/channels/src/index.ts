export { approvalButtons, approvalText, pressedDecision } from './approval-buttons.js';
export {
  ChannelCore,
  type ChannelCoreOptions,
  type ChannelSetup,
  type Platform,
  REFUSAL,
} from './channel-core.js';
export type { Button, ButtonPress, ChatOutput, ChatPlace, IncomingFile, IncomingMessage } from './chat.js';
export { ChatBook, type ChatEntry } from './chat-book.js';
export { HELP } from './commands.js';
export { ChannelError, type ChannelErrorCode, isChannelError } from './errors.js';
export { type SlackOptions, startSlack, toSlack } from './slack.js';
export { splitMarkdown } from './split.js';
export {
  channelSecrets,
  type RunningChannels,
  type StartChannelsOptions,
  scrubbed,
  startChannels,
} from './start.js';
export { StreamedReply } from './streamed-reply.js';
export { placeOfKey, TaskReports } from './task-reports.js';
export { type RunningChannel, startTelegram, type TelegramOptions, toTelegram } from './telegram.js';
export { type Transcriber, transcriberOf } from './voice.js';
export { safeFileName, saveFiles } from './workspace-files.js';
