/** Where hadir-mcp reads the data API, and with which key: from the environment alone. */
export interface Settings {
  baseUrl: string;
  apiKey: string;
}

const KEY_FORMAT = /^hadir_sk_[0-9a-f]{64}$/;

/**
 * The settings, or what is wrong with them in words an operator can act on. The key is never
 * read from the command line, where the process list and shell history would keep it.
 */
export function readSettings(env: NodeJS.ProcessEnv): Settings | { problem: string } {
  const baseUrl = env.HADIR_BASE_URL?.trim() ?? '';
  const apiKey = env.HADIR_API_KEY?.trim() ?? '';
  const missing = [
    baseUrl ? undefined : 'HADIR_BASE_URL (the service, e.g. https://hadir.example.com)',
    apiKey ? undefined : 'HADIR_API_KEY (your hadir_sk_… key)',
  ].filter((name) => name !== undefined);
  if (missing.length > 0) {
    return {
      problem: `set ${missing.join(' and ')} in the environment hadir-mcp starts with; it reads nothing from its arguments`,
    };
  }
  let url: URL;
  try {
    url = new URL(baseUrl);
  } catch {
    return { problem: `HADIR_BASE_URL is not a URL: ${baseUrl}` };
  }
  if (url.protocol !== 'https:' && url.protocol !== 'http:') {
    return { problem: `HADIR_BASE_URL must start with https:// (or http:// on this machine)` };
  }
  if (!KEY_FORMAT.test(apiKey)) {
    return { problem: 'HADIR_API_KEY is not a Hadir key: hadir_sk_ and 64 hexadecimal characters' };
  }
  return { baseUrl, apiKey };
}
