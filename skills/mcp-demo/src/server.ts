#!/usr/bin/env node
/**
 * The mcp-demo skill's server: a Model Context Protocol server on stdio with two tools, `echo` and `reverse_string`.
 * birdie starts it from the skill's `mcp_server` frontmatter with the running Node (`command: node`), so it needs no
 * network and no global install.
 */
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import { registerDemoTools } from './tools.js';

const server = new McpServer({ name: 'birdie-mcp-demo', version: '1.0.0' });
registerDemoTools(server);

// stdout belongs to the protocol: anything else goes to stderr.
await server.connect(new StdioServerTransport());
process.stderr.write('birdie-mcp-demo: ready on stdio\n');

// The client closing stdin is the normal way to end a stdio server.
process.stdin.on('end', () => {
  void server.close().finally(() => process.exit(0));
});
