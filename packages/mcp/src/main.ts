#!/usr/bin/env node
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import { printedConfig } from './print-config.ts';
import { createHadirMcpServer } from './server.ts';
import { readSettings } from './settings.ts';

// hadir-mcp: Model Context Protocol on standard input and output. Standard output carries the
// protocol alone; anything for a person goes to standard error.
if (process.argv[2] === 'print-config' && process.argv.length === 3) {
  process.stdout.write(`${printedConfig(process.env)}\n`);
  process.exit(0);
}
const settings = readSettings(process.env);
if ('problem' in settings) {
  process.stderr.write(`hadir-mcp: ${settings.problem}\n`);
  process.exit(2);
}
if (process.argv.length > 2) {
  process.stderr.write(
    'hadir-mcp: takes no arguments but print-config: it reads HADIR_BASE_URL and HADIR_API_KEY from the environment\n',
  );
  process.exit(2);
}
const server = createHadirMcpServer(settings);
await server.connect(new StdioServerTransport());
