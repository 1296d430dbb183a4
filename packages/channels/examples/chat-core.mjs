// The channel-neutral core without a chat platform: an allowed user and a stranger write to it, and every message it
// would post is printed. The model comes from the environment, as for the CLI (LLM_VENDOR, OPENAI_API_KEY, …).
import { mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ChannelCore, ChatBook } from '@birdie/channels';
import { openServeRuntime } from '@birdie/runtime/server-runtime';

const home = await mkdtemp(join(tmpdir(), 'birdie-channels-'));
const io = { env: { ...process.env, BIRDIE_HOME: home }, cwd: home, stderr: process.stderr };
const setup = await openServeRuntime(io, {}); // as `birdie serve`: the operator's policy, workspaces, sandbox

// A platform is a ChatOutput (send and edit Markdown) plus the messages and button presses it hands the core.
const posted = new Map();
const output = {
  maxChars: 4000,
  editEveryMs: 0,
  async send(place, markdown) {
    posted.set(posted.size + 1, `[chat ${place.chatId}] ${markdown}`);
    return String(posted.size);
  },
  async edit(place, id, markdown) {
    posted.set(Number(id), `[chat ${place.chatId}] ${markdown}`);
  },
};
const core = new ChannelCore({
  platform: 'telegram',
  setup,
  allow: { 111: 'alice' }, // Telegram user id → birdie user
  output,
  book: await ChatBook.open(join(home, 'channels.json')),
  log: () => {},
  maxFileBytes: 1_000_000,
});
const message = (userId, text) => ({
  place: { chatId: userId },
  userId,
  text,
  group: false,
  mentioned: false,
});
await core.onMessage(message('111', 'hello there'));
await core.onMessage(message('222', 'hello?'));
await core.idle();
for (const text of posted.values()) console.log(text);
console.log(`sessions of alice: ${(await setup.rt.store.sessions.list('alice')).length}`);
await setup.rt.close();
