import type { FastifyInstance } from 'fastify';
import { buildApp } from './app.ts';
import { systemClock } from './clock.ts';
import { type Config, secretsFromConfig } from './config.ts';
import { openStore, type Store } from './db/connect.ts';
import { migrateToLatest } from './db/migrate.ts';
import { createLogger } from './logger.ts';
import { createMailer } from './mail/mailer.ts';
import { ADDRESS_ATTEMPTS_PER_MINUTE } from './portal/portal.service.ts';
import { loadServerSecrets } from './secrets.ts';

export interface RunningServer {
  app: FastifyInstance;
  store: Store;
  url: string;
  close(): Promise<void>;
}

/**
 * The process: open the store, migrate, build the app, listen. The caller decides what to print
 * and when to stop; `stopOnSignals` wires SIGTERM and SIGINT to a clean close.
 */
export async function startServer(config: Config): Promise<RunningServer> {
  const logger = createLogger(config.logLevel);
  // Both stop the start with a clear message in production when their settings are missing.
  const secrets = loadServerSecrets(secretsFromConfig(config), config.production);
  const mailer = createMailer(config, logger);
  const store = openStore(config.databaseUrl, {
    onIdleError: (error) => logger.warn({ err: error }, 'idle database connection failed'),
  });
  await migrateToLatest(store);
  const app = await buildApp({
    store,
    clock: systemClock,
    config,
    logger,
    secrets,
    mailer,
    portal: {
      sessionIdleMs: config.sessionIdleMinutes * 60_000,
      sessionAbsoluteMs: config.sessionAbsoluteHours * 3_600_000,
      addressAttemptsPerMinute: ADDRESS_ATTEMPTS_PER_MINUTE,
    },
  });
  const address = await app.listen({ host: config.host, port: config.port });
  const url = address.replace('[::1]', 'localhost');
  let closing: Promise<void> | undefined;
  return {
    app,
    store,
    url,
    close() {
      closing ??= (async () => {
        await app.close();
        await store.close();
        mailer.close();
      })();
      return closing;
    },
  };
}

/** In-flight requests get this long to finish after SIGTERM before the process ends anyway. */
export const SHUTDOWN_GRACE_MS = 10_000;

/**
 * On SIGTERM or SIGINT: stop accepting connections, let in-flight requests finish (up to
 * SHUTDOWN_GRACE_MS), close the pools, and end with status 0.
 */
export function stopOnSignals(server: RunningServer, onStop?: () => void): void {
  const stop = () => {
    onStop?.();
    setTimeout(() => process.exit(1), SHUTDOWN_GRACE_MS).unref();
    server.close().then(
      () => process.exit(0),
      () => process.exit(1),
    );
  };
  process.once('SIGTERM', stop);
  process.once('SIGINT', stop);
}
