import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { z } from 'zod';

// Graphemes, not UTF-16 code units: reversing "👋🏽 e\u0301" by code units would split the skin-tone modifier off the
// hand and move the accent onto the wrong letter.
const graphemes = new Intl.Segmenter(undefined, { granularity: 'grapheme' });

/** Reverses a string by user-perceived characters, so emoji and combining marks survive. */
export function reverseGraphemes(text: string): string {
  return Array.from(graphemes.segment(text), (part) => part.segment)
    .reverse()
    .join('');
}

/** Adds the demo's two tools to an MCP server. */
export function registerDemoTools(server: McpServer): void {
  server.registerTool(
    'echo',
    {
      title: 'Echo',
      description: 'Returns the message unchanged. Useful to check that the MCP connection works.',
      inputSchema: { message: z.string().describe('Any text; it comes back exactly as sent') },
      annotations: { readOnlyHint: true, openWorldHint: false },
    },
    async ({ message }) => ({ content: [{ type: 'text', text: message }] }),
  );

  server.registerTool(
    'reverse_string',
    {
      title: 'Reverse a string',
      description:
        'Returns the text with its characters in reverse order (emoji and accented letters stay whole).',
      inputSchema: { text: z.string().describe('The text to reverse') },
      annotations: { readOnlyHint: true, openWorldHint: false },
    },
    async ({ text }) => ({ content: [{ type: 'text', text: reverseGraphemes(text) }] }),
  );
}
