import type { Config } from './config.ts';
import { ConfigError } from './errors.ts';

// What a server start requires of its configuration, checked before anything is opened: how
// clients reach it, where holders are sent, and where development mail may be read.

/**
 * How clients reach the service, which holds real attendees' personal data (spec: "Use HTTPS
 * only"): over TLS that `serve` terminates itself; through a proxy named in TRUST_PROXY that
 * terminates it (and says so in X-Forwarded-Proto); or, in development only, plain HTTP.
 */
export type Transport =
  | { kind: 'tls'; certFile: string; keyFile: string }
  | { kind: 'behind_proxy' }
  | { kind: 'plain_development' };

/** The transport a server start uses; in production, one without HTTPS stops the start. */
export function transportOf(config: Config): Transport {
  if (config.tls) return { kind: 'tls', ...config.tls };
  if (config.trustProxy !== false) return { kind: 'behind_proxy' };
  if (!config.production) return { kind: 'plain_development' };
  throw new ConfigError(
    'in production the service answers over HTTPS only: set TLS_CERT_FILE and TLS_KEY_FILE to serve it, or TRUST_PROXY to the proxy that terminates it',
  );
}

/**
 * The public address holders are sent to. In production it must be configured: a link built
 * from a request's Host header could point a holder anywhere.
 */
export function publicUrlOf(config: Config): string | undefined {
  if (config.publicUrl) return config.publicUrl;
  if (config.production) {
    throw new ConfigError(
      'PUBLIC_URL must be set in production: the address holders reach the service at, e.g. https://hadir.example.com',
    );
  }
  return undefined;
}

/**
 * Development mail is kept in ./data/outbox and shown at /developer/portal/dev/mail to clients on
 * this machine. That is safe only when the server listens on loopback alone and trusts no proxy
 * (behind a proxy, every client arrives from the proxy's address); otherwise SMTP_URL is required.
 */
export function checkDevelopmentMail(config: Config): void {
  if (config.smtpUrl) return;
  if (config.production) {
    throw new ConfigError('SMTP_URL must be set in production: one-time codes are sent by e-mail');
  }
  if (config.trustProxy !== false) {
    throw new ConfigError(
      'SMTP_URL must be set when TRUST_PROXY is set: the development mailbox cannot tell a proxied client from this machine',
    );
  }
  if (!isLoopbackHost(config.host)) {
    throw new ConfigError(
      `SMTP_URL must be set when HOST is not a loopback address (HOST is ${config.host}): the development mailbox is for this machine only`,
    );
  }
}

function isLoopbackHost(host: string): boolean {
  return host === 'localhost' || host === '::1' || /^127\.\d+\.\d+\.\d+$/.test(host);
}
