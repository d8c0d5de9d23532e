import { startPgBouncer } from '../test/helpers/pgbouncer.ts';
import { clientHeaders, MIXED_LOAD, serverEnv } from './cases.ts';
import { inTurn, type Pair } from './load.ts';
import { startHadir } from './processes.ts';

/** The mixed load's rate: well within what either path serves, so latency is compared, not capacity. */
const RATE = 1_000;

export interface PgBouncerRow {
  rate: number;
  /** a: straight to PostgreSQL; b: through PgBouncer in transaction mode. */
  pair: Pair;
  p50Ratio: number;
}

/**
 * The mixed load at a steady RATE, uncached, on a server straight to PostgreSQL and on one
 * through PgBouncer (transaction mode, 20 server connections), in turn: what the pooler adds.
 */
export async function measurePgBouncer(options: {
  databaseUrl: string;
  key: string;
  log: (line: string) => void;
}): Promise<PgBouncerRow> {
  const bouncer = await startPgBouncer(options.databaseUrl, 20);
  const direct = await startHadir(serverEnv(options.databaseUrl, false));
  const pooled = await startHadir(
    serverEnv(`${bouncer.pooled(options.databaseUrl)}?pgbouncer=true`, false),
  );
  try {
    const request = {
      path: MIXED_LOAD[0] as string,
      mix: MIXED_LOAD,
      headers: clientHeaders(options.key),
      expectStatus: 200,
      rate: RATE,
    };
    const pair = await inTurn(
      { server: direct, request },
      { server: pooled, request },
      { rounds: 3, seconds: 10, warmupSeconds: 2 },
    );
    const p50Ratio = pair.b.p50Ms / pair.a.p50Ms;
    options.log(
      `  p50 ${pair.a.p50Ms} ms straight, ${pair.b.p50Ms} ms through PgBouncer (${((p50Ratio - 1) * 100).toFixed(0)} %); p99 ${pair.a.p99Ms} and ${pair.b.p99Ms} ms`,
    );
    return { rate: RATE, pair, p50Ratio };
  } finally {
    await pooled.stop();
    await direct.stop();
    await bouncer.stop();
  }
}
