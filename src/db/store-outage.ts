import type { FastifyBaseLogger } from 'fastify';

export interface StoreOutageOptions {
  /** Succeeds once the store answers again (a `SELECT 1`, say). */
  probe: () => Promise<void>;
  logger: FastifyBaseLogger;
  /** How often the probe runs while the store is away. */
  probeIntervalMs?: number;
  /** How often the count of refused requests is logged while the store is away. */
  reportIntervalMs?: number;
}

interface Outage {
  since: number;
  /** Requests refused since the outage began, and since the last report. */
  refused: number;
  refusedSinceReport: number;
  lastReport: number;
  probe: NodeJS.Timeout;
}

/** What an error says of itself in a log line, without its stack. */
function briefly(error: unknown): { code?: unknown; message: string } {
  if (!(error instanceof Error)) return { message: String(error) };
  const code = (error as { code?: unknown }).code;
  return { ...(code === undefined ? {} : { code }), message: error.message };
}

/**
 * The store's availability as requests meet it. An outage is logged as it begins (one warning),
 * while it lasts (a count of refused requests now and then) and as it ends (one line, found by a
 * probe that runs only meanwhile), never as a line and a stack per refused request: during a
 * database outage those alone would fill a disk.
 */
export class StoreOutage {
  readonly #options: Required<StoreOutageOptions>;
  #outage: Outage | undefined;

  constructor(options: StoreOutageOptions) {
    this.#options = { probeIntervalMs: 2_000, reportIntervalMs: 60_000, ...options };
  }

  /** A request was refused because the store could not be reached. */
  noteUnavailable(error: unknown): void {
    if (this.#outage) {
      this.#outage.refused += 1;
      this.#outage.refusedSinceReport += 1;
      return;
    }
    const now = Date.now();
    this.#options.logger.warn(
      { cause: briefly(error) },
      'the data store is unreachable; requests that need it get 503 until it is back',
    );
    const probe = setInterval(() => this.#probe(), this.#options.probeIntervalMs);
    probe.unref();
    this.#outage = { since: now, refused: 1, refusedSinceReport: 1, lastReport: now, probe };
  }

  #probing = false;

  /** The store answered (the probe, or a readiness check): an outage, if any, is over. */
  noteAvailable(): void {
    const outage = this.#outage;
    if (!outage) return;
    this.close();
    this.#options.logger.info(
      { downForMs: Date.now() - outage.since, refused: outage.refused },
      'the data store is reachable again',
    );
  }

  async #probe(): Promise<void> {
    if (this.#probing) return;
    this.#probing = true;
    try {
      await this.#options.probe();
      this.noteAvailable();
    } catch {
      const outage = this.#outage;
      if (!outage || Date.now() - outage.lastReport < this.#options.reportIntervalMs) return;
      this.#options.logger.warn(
        {
          downForMs: Date.now() - outage.since,
          refused: outage.refused,
          refusedSinceLastReport: outage.refusedSinceReport,
        },
        'the data store is still unreachable',
      );
      outage.lastReport = Date.now();
      outage.refusedSinceReport = 0;
    } finally {
      this.#probing = false;
    }
  }

  /** Stops the probe (the server is closing, or the store is back). */
  close(): void {
    if (this.#outage) clearInterval(this.#outage.probe);
    this.#outage = undefined;
  }
}
