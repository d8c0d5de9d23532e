import { fileURLToPath } from 'node:url';

/**
 * The entry an agent host needs to start this installation, with absolute paths: this Node.js
 * and this package's program. Hosts start servers from a folder of their own (Claude Desktop from
 * `/`), where `npx` would not find a package installed in another folder. The key is never
 * printed: the entry holds a placeholder for it.
 */
export function printedConfig(env: NodeJS.ProcessEnv): string {
  const program = fileURLToPath(new URL('../bin/hadir-mcp.js', import.meta.url));
  return JSON.stringify(
    {
      mcpServers: {
        hadir: {
          command: process.execPath,
          args: [program],
          env: {
            HADIR_BASE_URL: env.HADIR_BASE_URL || 'https://hadir.example.com',
            HADIR_API_KEY: 'hadir_sk_… (your key)',
          },
        },
      },
    },
    null,
    2,
  );
}
