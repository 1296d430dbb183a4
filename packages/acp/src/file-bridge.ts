import type { AgentContext, ClientCapabilities } from '@agentclientprotocol/sdk';
import { methods } from '@agentclientprotocol/sdk';
import type { FileAccess } from './runtime.js';

/**
 * The client's text files as birdie's file access, when the client offers both reading and writing: the filesystem
 * skill then reads unsaved buffers and its writes go through the editor. Undefined otherwise (tools use the disk).
 */
export function clientFiles(
  client: AgentContext,
  sessionId: string,
  capabilities: ClientCapabilities | undefined,
): FileAccess | undefined {
  if (!capabilities?.fs?.readTextFile || !capabilities.fs.writeTextFile) return undefined;
  return {
    async readTextFile(path, options = {}) {
      const response = await client.request(methods.client.fs.readTextFile, {
        sessionId,
        path,
        ...(options.line !== undefined ? { line: options.line } : {}),
        ...(options.limit !== undefined ? { limit: options.limit } : {}),
      });
      return response.content;
    },
    async writeTextFile(path, content) {
      await client.request(methods.client.fs.writeTextFile, { sessionId, path, content });
    },
  };
}
