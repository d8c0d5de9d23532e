import type { FastifyPluginAsync, FastifyRequest } from 'fastify';
import type { Clock } from '../clock.ts';
import type { Store } from '../db/store.ts';
import { ApiError } from '../errors.ts';
import { problemsText } from '../import/import-problems.ts';
import { ScrubSoon } from '../removals/scrub-soon.ts';
import { inSpan } from '../tracing/tracing.ts';
import { BatchSlots, batchBodyOf, idempotencyKeyOf } from './batch-request.ts';
import {
  applyBatch,
  type BatchAnswer,
  MAX_BATCH_BYTES,
  MAX_BATCH_RECORDS,
} from './ingest.service.ts';
import { type IngestTokenRecord, noteIngestTokenUsed } from './ingest-tokens.repository.ts';
import { type IngestCaller, verifyIngestToken } from './ingest-tokens.service.ts';
import { TokenRefusals, TokensInForce } from './token-refusals.ts';

export const INGEST_PREFIX = '/ingest/v1';

const OUTCOMES: Record<Awaited<ReturnType<typeof applyBatch>>['kind'], BatchOutcome> = {
  applied: 'applied',
  replayed: 'replayed',
  key_reused: 'conflict',
  key_in_flight: 'conflict',
  refused: 'refused',
  too_many_records: 'too_large',
};

/** How often a token's last use is written: a steady stream of batches must not write it each time. */
const LAST_USED_EVERY_MS = 60_000;

/** How long after a batch that removed respondents the store's files are scrubbed. */
export const SCRUB_AFTER_REMOVAL_MS = 60_000;

export interface IngestSettings {
  store: Store;
  clock: Clock;
  /** Batches applied at once; one more is answered 429 (see docs/ingesting.md). */
  maxConcurrentBatches: number;
  /** SCRUB_AFTER_REMOVAL_MS unless given (tests shorten it). */
  scrubAfterMs?: number;
  /** Refused tokens a minute from one address before it is answered 429 (60 unless given). */
  refusedTokensPerMinute?: number;
  /** Hears each batch's outcome, for the metrics: counts and times, never a record. */
  observer?: IngestObserver;
}

/** What a batch came to, as the metrics count it. */
export type BatchOutcome = 'applied' | 'replayed' | 'refused' | 'conflict' | 'too_large' | 'busy';

export interface IngestObserver {
  batch(outcome: BatchOutcome): void;
  /**
   * What became of an applied batch's records, and the seconds from the platform's commit of its
   * oldest change (the relay's Hadir-Oldest-Change header) to the batch's commit, when the relay
   * said it.
   */
  applied(
    counts: { upserted: number; deleted: number; stale: number; keptErased: number },
    delaySeconds: number | undefined,
  ): void;
}

/** The relay's word for when the platform committed a batch's oldest change, or undefined. */
function oldestChangeOf(request: FastifyRequest): number | undefined {
  const header = request.headers['hadir-oldest-change'];
  const at = typeof header === 'string' && header.length <= 40 ? Date.parse(header) : Number.NaN;
  return Number.isFinite(at) ? at : undefined;
}

function refusal(caller: Exclude<IngestCaller, { kind: 'valid' }>): string {
  switch (caller.kind) {
    case 'missing':
      return 'an ingest token is required: send Authorization: Bearer <token>';
    case 'malformed':
      return 'the ingest token is malformed: expected hadir_it_ followed by 64 lowercase hex characters';
    case 'unknown':
      return 'the ingest token is not known';
    case 'revoked':
      return 'the ingest token has been revoked';
  }
}

/**
 * The platform's way in (docs/ingesting.md): `POST /ingest/v1/batches`, a body of JSON Lines
 * records applied all or nothing, once per Idempotency-Key. The token is checked before the body
 * is read; the data API's keys and the portal's sessions are not tokens here, nor the other way.
 * Not part of the partners' reference: its route is hidden from the OpenAPI description.
 */
export function ingestRoutes(settings: IngestSettings): FastifyPluginAsync {
  return async (ingest) => {
    const slots = new BatchSlots(settings.maxConcurrentBatches);
    // Removed respondents leave no copy in the files (Store.scrubRemovals), within a minute:
    // at once would rebuild a SQLite file for each batch of a steady stream.
    const scrub = new ScrubSoon(settings.store, {
      afterMs: settings.scrubAfterMs ?? SCRUB_AFTER_REMOVAL_MS,
      report: (outcome) => {
        if ('error' in outcome) {
          ingest.log.error({ err: outcome.error }, 'scrubbing removed respondents failed');
        } else ingest.log.info({ scrub: outcome.scrub }, 'removed respondents scrubbed');
      },
    });
    ingest.addHook('onClose', () => scrub.close());
    ingest.addContentTypeParser(
      'application/x-ndjson',
      { parseAs: 'buffer', bodyLimit: MAX_BATCH_BYTES },
      (_request, body, done) => done(null, body),
    );
    const refusals = new TokenRefusals(settings.refusedTokensPerMinute ?? 60, settings.clock);
    const inForce = new TokensInForce(settings.store, settings.clock);
    ingest.addHook('onRequest', async (request: FastifyRequest) => {
      const wait = refusals.waitOf(request.ip);
      if (wait > 0 && !(await inForce.holds(request.headers.authorization))) {
        throw new ApiError(
          'rate_limited',
          `too many refused ingest tokens from this address: try again in ${wait} s`,
          { 'retry-after': String(wait) },
        );
      }
      const caller = await verifyIngestToken(settings.store, request.headers.authorization);
      if (caller.kind !== 'valid') {
        refusals.refused(request.ip);
        throw new ApiError('unauthorized', refusal(caller), {
          'www-authenticate': 'Bearer realm="hadir-ingest"',
        });
      }
      request.ingestToken = caller.token;
    });
    // Declared up front, so every request keeps one shape; set above before any handler runs.
    ingest.decorateRequest('ingestToken', null as unknown as IngestTokenRecord);
    ingest.setErrorHandler((error, _request, reply) => {
      if ((error as { code?: string }).code === 'FST_ERR_CTP_BODY_TOO_LARGE') {
        throw new ApiError(
          'payload_too_large',
          `a batch is at most ${MAX_BATCH_BYTES.toLocaleString('en')} bytes (5 MB): send fewer records per batch`,
        );
      }
      void reply;
      throw error;
    });

    ingest.post(
      '/batches',
      { schema: { hide: true }, bodyLimit: MAX_BATCH_BYTES },
      async (request, reply) => {
        const token = request.ingestToken;
        const body = batchBodyOf(request);
        const key = idempotencyKeyOf(request);
        const observer = settings.observer;
        let release: () => void;
        try {
          release = slots.take();
        } catch (error) {
          observer?.batch('busy');
          throw error;
        }
        let outcome: Awaited<ReturnType<typeof applyBatch>>;
        try {
          outcome = await inSpan(
            'ingest batch',
            { 'hadir.batch.bytes': body.length },
            async (span) => {
              const applied = await applyBatch(settings.store, settings.clock, {
                tokenId: token.id,
                key,
                body,
              });
              span.setAttribute('hadir.batch.outcome', OUTCOMES[applied.kind]);
              if (applied.kind === 'applied') {
                span.setAttributes({
                  'hadir.batch.upserted': applied.answer.applied.respondents,
                  'hadir.batch.deleted': applied.answer.applied.deletions,
                  'hadir.batch.stale': applied.answer.stale,
                });
              }
              return applied;
            },
          );
        } finally {
          release();
        }
        await noteUse(settings, token);
        observer?.batch(OUTCOMES[outcome.kind]);
        switch (outcome.kind) {
          case 'applied': {
            const oldest = oldestChangeOf(request);
            const committedAt = Date.parse(outcome.answer.committedAt);
            const { answer } = outcome;
            observer?.applied(
              {
                upserted: answer.applied.respondents,
                deleted: answer.applied.deletions,
                stale: answer.stale,
                keptErased: answer.keptErased.count,
              },
              oldest === undefined ? undefined : Math.max(0, committedAt - oldest) / 1000,
            );
            if (outcome.removed) scrub.removed();
            return reply.code(200).send(outcome.answer satisfies BatchAnswer);
          }
          case 'replayed':
            return reply
              .code(200)
              .header('idempotent-replayed', 'true')
              .send(outcome.answer satisfies BatchAnswer);
          case 'key_reused':
            throw new ApiError(
              'conflict',
              'this Idempotency-Key was used in the last 24 hours for a batch with another body: give each batch a key of its own',
            );
          case 'key_in_flight':
            throw new ApiError(
              'conflict',
              'a batch with this Idempotency-Key was being applied; send it again',
            );
          case 'refused':
            throw new ApiError(
              'unprocessable_entity',
              problemsText('batch refused, nothing was written', outcome.problems, outcome.unshown),
            );
          case 'too_many_records':
            throw new ApiError(
              'payload_too_large',
              `a batch is at most ${MAX_BATCH_RECORDS.toLocaleString('en')} records, this one holds ${outcome.records.toLocaleString('en')}`,
            );
        }
      },
    );
  };
}

/** Notes a token's use, at most once a minute; bookkeeping, so a failure is no batch's failure. */
async function noteUse(
  settings: IngestSettings,
  token: { id: string; lastUsedAt: number | null },
): Promise<void> {
  const now = settings.clock.now();
  if (token.lastUsedAt !== null && now - token.lastUsedAt < LAST_USED_EVERY_MS) return;
  await noteIngestTokenUsed(settings.store.db, token.id, now).catch(() => {});
}
