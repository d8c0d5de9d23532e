import { hkdfSync, randomBytes } from 'node:crypto';
import { chmodSync, existsSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import type { Config } from './config.ts';
import { ConfigError } from './errors.ts';
import { securePrivateFile, securePrivateFolder, type Warn } from './file-modes.ts';

/** Server-side secrets: never sent anywhere, never logged. */
export interface ServerSecrets {
  /** HMAC key for one-time codes (a plain hash of a 6-digit code is reversed at once). */
  readonly codeHmacKey: Buffer;
  /** AES-256-GCM key for API keys held sealed until their one reveal. */
  readonly keySealKey: Buffer;
  /** HMAC key for page cursors (see page-cursor.ts), derived from the code secret. */
  readonly cursorKey: Buffer;
}

/**
 * A key for another purpose, derived from a server secret (HKDF-SHA-256 with the purpose as
 * info), so an operator keeps two secrets and no key serves two purposes.
 */
export function deriveKey(secret: Buffer, purpose: string): Buffer {
  return Buffer.from(hkdfSync('sha256', secret, Buffer.alloc(0), purpose, 32));
}

export const DEVELOPMENT_SECRETS_FILE = './data/secrets.json';

const NAMES = { codeHmacKey: 'CODE_HMAC_SECRET', keySealKey: 'KEY_SEAL_SECRET' } as const;
type SecretName = keyof typeof NAMES;

function parseHex(name: string, value: string): Buffer {
  if (!/^[0-9a-fA-F]{64}$/.test(value)) {
    throw new ConfigError(`${name} must be 64 hexadecimal characters (32 bytes)`);
  }
  return Buffer.from(value, 'hex');
}

/**
 * Secrets from the environment. In development a missing one is generated once and kept in
 * ./data/secrets.json (mode 0600, in a 0700 folder; a looser one is tightened, with a warning);
 * in production a missing one stops the start.
 */
export function loadServerSecrets(
  fromEnv: Partial<Record<SecretName, string>>,
  production: boolean,
  file = DEVELOPMENT_SECRETS_FILE,
  warn: Warn = (message) => process.emitWarning(message),
): ServerSecrets {
  const missing = (Object.keys(NAMES) as SecretName[]).filter((name) => !fromEnv[name]);
  if (missing.length > 0 && production) {
    throw new ConfigError(
      `${missing.map((name) => NAMES[name]).join(' and ')} must be set in production (64 hex characters each, e.g. from openssl rand -hex 32)`,
    );
  }
  let stored: Partial<Record<SecretName, string>> = {};
  if (missing.length > 0) {
    securePrivateFolder(dirname(file), warn);
    securePrivateFile(file, warn);
    if (existsSync(file)) stored = JSON.parse(readFileSync(file, 'utf8'));
    let changed = false;
    for (const name of missing) {
      if (!stored[name]) {
        stored[name] = randomBytes(32).toString('hex');
        changed = true;
      }
    }
    if (changed) {
      writeFileSync(file, JSON.stringify(stored, null, 2), { mode: 0o600 });
      chmodSync(file, 0o600);
    }
  }
  const value = (name: SecretName) =>
    parseHex(NAMES[name], (fromEnv[name] ?? stored[name]) as string);
  const codeHmacKey = value('codeHmacKey');
  return {
    codeHmacKey,
    keySealKey: value('keySealKey'),
    cursorKey: deriveKey(codeHmacKey, 'hadir page cursors'),
  };
}

/** The secrets a configuration names (CODE_HMAC_SECRET, KEY_SEAL_SECRET), where it names them. */
export function secretsFromConfig(config: Config) {
  return {
    ...(config.codeHmacSecret ? { codeHmacKey: config.codeHmacSecret } : {}),
    ...(config.keySealSecret ? { keySealKey: config.keySealSecret } : {}),
  };
}

/**
 * The server's secrets for this configuration (see loadServerSecrets). In development, secrets not
 * in the environment are kept beside the SQLite database they seal for, so that the server and a
 * CLI started from any folder (`/` too, as a service manager starts it) with the same
 * DATABASE_URL share them; for PostgreSQL, in ./data/secrets.json.
 */
export function serverSecretsOf(config: Config, warn?: Warn): ServerSecrets {
  const file = developmentSecretsFile(config);
  return loadServerSecrets(secretsFromConfig(config), config.production, file, warn);
}

/** Where development secrets are kept for this configuration's database (see serverSecretsOf). */
export function developmentSecretsFile(config: Pick<Config, 'databaseUrl'>): string {
  const sqlite = /^sqlite:(?!:memory:)(.+)$/.exec(config.databaseUrl);
  return sqlite
    ? join(dirname((sqlite[1] as string).replace(/^\/\/(?=\/)/, '')), 'secrets.json')
    : DEVELOPMENT_SECRETS_FILE;
}
