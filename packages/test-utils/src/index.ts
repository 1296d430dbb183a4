export { type BashTracer, bashTracer } from './bash-trace.js';
export {
  type Browser,
  type BrowserContext,
  BrowserUnavailableError,
  chromiumPath,
  isBrowserUnavailableError,
  launchChromium,
  type Page,
} from './browser.js';
export { type Child, spawnModule } from './child.js';
export {
  CorpusMissingError,
  corpusRoot,
  isCorpusMissingError,
  REPO_ROOT,
  testsReadingCorpus,
} from './corpus.js';
export { FakeBotApi, type FakeMessage, type RecordedCall } from './fake-bot-api.js';
export { FakeOpenAi, type Transcription } from './fake-openai.js';
export {
  FakeSlackApi,
  type SignOptions,
  SLACK_BOT_USER,
  type SlackButton,
  type SlackCall,
  type SlackEphemeral,
  type SlackMessage,
} from './fake-slack-api.js';
export { freePort, type HttpMcpServer, startHttpMcpServer } from './http-mcp-server.js';
export {
  CRASH_SAFE_SETTINGS,
  type PostgresServer,
  PostgresUnavailableError,
  type StartPostgresOptions,
  startPostgres,
} from './postgres.js';
export { publishedTypeProblems } from './published-types.js';
export { blackhole, type FreezableProxy, freezableProxy, type SilentServer } from './silent-server.js';
export { StreamedBody, type StreamedBodyOptions } from './streamed-body.js';
export { makeTempDir, type TempDir, writeTree } from './temp-dir.js';
export {
  asUnprivileged,
  isUnprivilegedUnavailableError,
  NOBODY,
  UnprivilegedUnavailableError,
} from './unprivileged.js';
