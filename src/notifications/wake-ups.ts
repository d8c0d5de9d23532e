import pg from 'pg';
import { DELIVERIES_CHANNEL } from '../db/schema.ts';

/** How long a lost listening connection waits before it tries again. */
const RECONNECT_MS = 1_000;

export interface WakeUps {
  /** Resolves once the first connection listens. */
  readonly ready: Promise<void>;
  stop(): Promise<void>;
}

/**
 * PostgreSQL: calls `wake` when a commit added deliveries (see migration 0010), on a connection
 * of its own outside the pool, so that a worker sends at once instead of at its next look.
 * A lost connection is made again after a second, and `wake` is called once it listens: what
 * was committed meanwhile is not missed. `url` reaches PostgreSQL with a session of its own (not
 * through a transaction pooler, which would hand the LISTEN's connection to others).
 */
export function deliveryWakeUps(
  url: string,
  wake: () => void,
  onError: (error: unknown) => void,
): WakeUps {
  let current: pg.Client | undefined;
  let retry: NodeJS.Timeout | undefined;
  let stopped = false;
  let listening: () => void = () => {};
  const ready = new Promise<void>((resolve) => {
    listening = resolve;
  });

  const again = (client: pg.Client) => {
    // Only the connection in use is made again, once: `error` and `end` both come for one loss.
    if (stopped || client !== current) return;
    current = undefined;
    client.end().catch(() => {});
    retry = setTimeout(connect, RECONNECT_MS);
    retry.unref();
  };
  function connect() {
    const client = new pg.Client({
      connectionString: url,
      keepAlive: true,
      connectionTimeoutMillis: 3_000,
    });
    current = client;
    client.on('notification', () => wake());
    client.on('error', (error) => {
      onError(error);
      again(client);
    });
    client.on('end', () => again(client));
    client
      .connect()
      .then(() => client.query(`LISTEN ${DELIVERIES_CHANNEL}`))
      .then(() => {
        if (client !== current) return;
        listening();
        wake();
      })
      .catch((error) => {
        onError(error);
        again(client);
      });
  }
  connect();
  return {
    ready,
    async stop() {
      stopped = true;
      clearTimeout(retry);
      await current?.end().catch(() => {});
    },
  };
}
