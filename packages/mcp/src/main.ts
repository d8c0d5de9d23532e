#!/usr/bin/env node
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import { createHadirMcpServer } from './server.ts';
import { readSettings } from './settings.ts';

// hadir-mcp: Model Context Protocol on standard input and output. Standard output carries the
// protocol alone; anything for a person goes to standard error.
const settings = readSettings(process.env);
if ('problem' in settings) {
  process.stderr.write(`hadir-mcp: ${settings.problem}\n`);
  process.exit(2);
}
if (process.argv.length > 2) {
  process.stderr.write(
    'hadir-mcp: takes no arguments: it reads HADIR_BASE_URL and HADIR_API_KEY from the environment\n',
  );
  process.exit(2);
}
const server = createHadirMcpServer(settings);
await server.connect(new StdioServerTransport());
