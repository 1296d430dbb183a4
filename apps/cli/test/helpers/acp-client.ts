import { type ChildProcess, spawn } from 'node:child_process';
import { PassThrough, Readable, Writable } from 'node:stream';
import {
  type ClientConnection,
  client,
  methods,
  ndJsonStream,
  PROTOCOL_VERSION,
  type RequestPermissionRequest,
  type RequestPermissionResponse,
  type SessionNotification,
} from '@agentclientprotocol/sdk';
import { BIN, type Sandbox } from './env.js';

export interface AcpProcess {
  child: ChildProcess;
  agent: ClientConnection['agent'];
  /** Everything the client saw, in order: updates, permission requests and file requests. */
  log: Array<
    | { kind: 'update'; update: SessionNotification['update'] }
    | { kind: 'permission'; request: RequestPermissionRequest }
    | { kind: 'read' | 'write'; path: string; content?: string }
  >;
  /** The raw lines birdie wrote to stdout. */
  stdoutLines(): string[];
  stderr(): string;
  /** The editor's answer to a permission request (a promise that never settles: a dialog nobody answers). */
  answer: (
    request: RequestPermissionRequest,
  ) => RequestPermissionResponse | Promise<RequestPermissionResponse>;
  /** Buffers the editor holds, by absolute path (`fs/*` answers from here). */
  buffers: Map<string, string>;
  initialize(fs?: boolean): Promise<void>;
  /** Closes stdin (the editor goes away) and resolves with birdie's exit code. */
  end(): Promise<number | null>;
}

/** `birdie acp …` started as an editor would, driven by the ACP SDK's client side. */
export function startAcp(box: Sandbox, args: string[], env: NodeJS.ProcessEnv = {}): AcpProcess {
  const child = spawn(process.execPath, [BIN, 'acp', ...args], {
    cwd: box.cwd,
    env: { ...box.env, ...env },
    stdio: ['pipe', 'pipe', 'pipe'],
  });
  let stdout = '';
  let stderr = '';
  const tee = new PassThrough();
  child.stdout!.on('data', (chunk: Buffer) => {
    stdout += chunk.toString('utf8');
  });
  child.stdout!.pipe(tee);
  child.stderr!.on('data', (chunk: Buffer) => {
    stderr += chunk.toString('utf8');
  });
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  const proc: AcpProcess = {
    child,
    agent: undefined as never,
    log: [],
    stdoutLines: () => stdout.split('\n').filter((line) => line !== ''),
    stderr: () => stderr,
    answer: () => ({ outcome: { outcome: 'selected', optionId: 'allow-once' } }),
    buffers: new Map(),
    async initialize(fs = false) {
      await proc.agent.request(methods.agent.initialize, {
        protocolVersion: PROTOCOL_VERSION,
        clientCapabilities: { fs: { readTextFile: fs, writeTextFile: fs }, terminal: false },
        clientInfo: { name: 'test-editor', version: '1' },
      });
    },
    async end() {
      child.stdin!.end();
      return exited;
    },
  };
  const app = client({ name: 'test-editor' })
    .onNotification(methods.client.session.update, ({ params }) => {
      proc.log.push({ kind: 'update', update: params.update });
    })
    .onRequest(methods.client.session.requestPermission, ({ params }) => {
      proc.log.push({ kind: 'permission', request: params });
      return proc.answer(params);
    })
    .onRequest(methods.client.fs.readTextFile, ({ params }) => {
      proc.log.push({ kind: 'read', path: params.path });
      return { content: proc.buffers.get(params.path) ?? '' };
    })
    .onRequest(methods.client.fs.writeTextFile, ({ params }) => {
      proc.log.push({ kind: 'write', path: params.path, content: params.content });
      proc.buffers.set(params.path, params.content);
      return {};
    });
  const connection = app.connect(
    ndJsonStream(
      Writable.toWeb(child.stdin!) as WritableStream<Uint8Array>,
      Readable.toWeb(tee) as ReadableStream<Uint8Array>,
    ),
  );
  proc.agent = connection.agent;
  return proc;
}

/** The log as short lines: `tool_call <tool> pending`, `permission <tool>`, `plan …`, `text …`. */
export function outline(proc: AcpProcess): string[] {
  const names = new Map<string, string>();
  const lines: string[] = [];
  for (const entry of proc.log) {
    if (entry.kind === 'permission') {
      lines.push(
        `permission ${names.get(entry.request.toolCall.toolCallId) ?? entry.request.toolCall.toolCallId}`,
      );
      continue;
    }
    if (entry.kind !== 'update') {
      lines.push(`${entry.kind} ${entry.path}`);
      continue;
    }
    const u = entry.update;
    // The context meter comes after every model call; tests that are about it read it from the log.
    if (u.sessionUpdate === 'usage_update') continue;
    if (u.sessionUpdate === 'tool_call') {
      names.set(u.toolCallId, u.title.split(' ')[0] ?? u.title);
      lines.push(`tool_call ${names.get(u.toolCallId)} ${u.status}`);
    } else if (u.sessionUpdate === 'tool_call_update') {
      lines.push(`tool_call_update ${names.get(u.toolCallId) ?? u.toolCallId} ${u.status}`);
    } else if (u.sessionUpdate === 'plan') {
      lines.push(`plan ${u.entries.map((e) => `${e.content}:${e.status}`).join(', ')}`);
    } else if (u.sessionUpdate === 'agent_message_chunk' || u.sessionUpdate === 'user_message_chunk') {
      const text = u.content.type === 'text' ? u.content.text : '';
      const kind = u.sessionUpdate === 'agent_message_chunk' ? 'text' : 'user';
      // Consecutive chunks read as one line.
      if (lines.at(-1)?.startsWith(`${kind} `)) lines[lines.length - 1] += text;
      else lines.push(`${kind} ${text}`);
    } else lines.push(u.sessionUpdate);
  }
  return lines;
}

/** Ends the `birdie acp` processes a test started (their stdin closed, killed if still running) and forgets them. */
export function stopAcp(running: AcpProcess[]): void {
  for (const proc of running.splice(0)) {
    proc.child.stdin?.end();
    if (proc.child.exitCode === null) proc.child.kill('SIGKILL');
  }
}
