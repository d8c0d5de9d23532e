import { describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config.ts';
import { parseDatabaseUrl } from '../../src/db/connect.ts';
import { defaultMaxConnections, openFileLimit } from '../../src/http/connections.ts';
import { checkDevelopmentMail, publicUrlOf } from '../../src/start-requirements.ts';

describe('a PostgreSQL URL through a transaction pooler', () => {
  it('is marked by ?pgbouncer=true, which the driver never sees', () => {
    expect(parseDatabaseUrl('postgres://hadir@pool:6432/hadir?pgbouncer=true')).toEqual({
      engine: 'postgres',
      connectionString: 'postgres://hadir@pool:6432/hadir',
      transactionPooler: true,
    });
    expect(parseDatabaseUrl('postgres://hadir@db/hadir?sslmode=require&pgbouncer=false')).toEqual({
      engine: 'postgres',
      connectionString: 'postgres://hadir@db/hadir?sslmode=require',
      transactionPooler: false,
    });
    expect(() => parseDatabaseUrl('postgres://db/hadir?pgbouncer=yes')).toThrow(
      /pgbouncer must be true or false/,
    );
  });

  it('takes DATABASE_LISTEN_URL for the one connection that needs a session', () => {
    expect(loadConfig({ DATABASE_LISTEN_URL: 'postgres://db/hadir' }).databaseListenUrl).toBe(
      'postgres://db/hadir',
    );
    expect(() => loadConfig({ DATABASE_LISTEN_URL: 'sqlite:./x' })).toThrow(/DATABASE_LISTEN_URL/);
  });
});

describe('connections', () => {
  it('cap connections below the open-file limit unless MAX_CONNECTIONS says', () => {
    expect(loadConfig({}).maxConnections).toBe(defaultMaxConnections(openFileLimit()));
    expect(loadConfig({ MAX_CONNECTIONS: '500' }).maxConnections).toBe(500);
    expect(() => loadConfig({ MAX_CONNECTIONS: '0' })).toThrow(/MAX_CONNECTIONS/);
  });

  it('keep idle connections 65 seconds unless KEEP_ALIVE_TIMEOUT_SECONDS says', () => {
    expect(loadConfig({}).keepAliveTimeoutMs).toBe(65_000);
    expect(loadConfig({ KEEP_ALIVE_TIMEOUT_SECONDS: '5' }).keepAliveTimeoutMs).toBe(5_000);
    expect(() => loadConfig({ KEEP_ALIVE_TIMEOUT_SECONDS: 'soon' })).toThrow(
      /KEEP_ALIVE_TIMEOUT_SECONDS/,
    );
  });
});

describe('the development mailbox', () => {
  it('exists only on loopback with no proxy trusted; otherwise SMTP_URL is required', () => {
    expect(() => checkDevelopmentMail(loadConfig({}))).not.toThrow();
    expect(() => checkDevelopmentMail(loadConfig({ HOST: '::1' }))).not.toThrow();
    expect(() => checkDevelopmentMail(loadConfig({ TRUST_PROXY: '127.0.0.1' }))).toThrow(
      /SMTP_URL must be set when TRUST_PROXY is set/,
    );
    expect(() => checkDevelopmentMail(loadConfig({ HOST: '0.0.0.0' }))).toThrow(
      /SMTP_URL must be set when HOST is not a loopback address/,
    );
    expect(() => checkDevelopmentMail(loadConfig({ NODE_ENV: 'production' }))).toThrow(
      /SMTP_URL must be set in production/,
    );
    for (const env of [{ TRUST_PROXY: 'true' }, { HOST: '0.0.0.0' }]) {
      expect(() =>
        checkDevelopmentMail(loadConfig({ ...env, SMTP_URL: 'smtp://127.0.0.1:2525' })),
      ).not.toThrow();
    }
  });
});

describe('the public address', () => {
  it('is configured, required in production, and never carries a path', () => {
    expect(loadConfig({ PUBLIC_URL: 'https://hadir.example.com/' }).publicUrl).toBe(
      'https://hadir.example.com',
    );
    expect(() => loadConfig({ PUBLIC_URL: 'https://hadir.example.com/app' })).toThrow(/no path/);
    expect(() => loadConfig({ PUBLIC_URL: 'hadir.example.com' })).toThrow(/PUBLIC_URL/);
    expect(publicUrlOf(loadConfig({}))).toBeUndefined();
    expect(() => publicUrlOf(loadConfig({ NODE_ENV: 'production' }))).toThrow(
      /PUBLIC_URL must be set in production/,
    );
  });
});

describe('MCP_ALLOWED_ORIGINS', () => {
  it('lists browser origins for the hosted MCP endpoint, none by default', () => {
    expect(loadConfig({}).mcpAllowedOrigins).toEqual([]);
    expect(
      loadConfig({ MCP_ALLOWED_ORIGINS: 'https://app.example.com, http://localhost:5173' })
        .mcpAllowedOrigins,
    ).toEqual(['https://app.example.com', 'http://localhost:5173']);
  });

  it('refuses what a browser would never send as an origin, naming it', () => {
    for (const wrong of ['https://app.example.com/path', 'app.example.com', 'ftp://x.example']) {
      expect(() => loadConfig({ MCP_ALLOWED_ORIGINS: wrong })).toThrow(
        `MCP_ALLOWED_ORIGINS must list origins such as https://app.example.com (scheme, host and port, no path), got '${wrong}'`,
      );
    }
  });
});
