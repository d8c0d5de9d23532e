import type { FastifyRequest } from 'fastify';
import { ApiError } from '../errors.ts';

/** 1 to 255 visible ASCII characters, as Stripe's Idempotency-Key takes them. */
const IDEMPOTENCY_KEY = /^[\x21-\x7e]{1,255}$/;

/** The batch's Idempotency-Key, the same on every retry of one batch; 400 without one. */
export function idempotencyKeyOf(request: FastifyRequest): string {
  const key = request.headers['idempotency-key'];
  if (typeof key !== 'string' || !IDEMPOTENCY_KEY.test(key)) {
    throw new ApiError(
      'invalid_parameter',
      'the Idempotency-Key header is required: 1 to 255 visible ASCII characters, the same on every retry of a batch',
    );
  }
  return key;
}

/**
 * The batch's bytes, as sent: JSON Lines, and no Content-Encoding, which is not decoded here (a
 * compressed body read as text would be refused line by line, or worse, taken); 415 otherwise.
 */
export function batchBodyOf(request: FastifyRequest): Buffer {
  if (!Buffer.isBuffer(request.body)) {
    throw new ApiError(
      'unsupported_media_type',
      'a batch is JSON Lines: send Content-Type: application/x-ndjson',
    );
  }
  const coding = request.headers['content-encoding']?.trim().toLowerCase();
  if (coding !== undefined && coding !== '' && coding !== 'identity') {
    throw new ApiError(
      'unsupported_media_type',
      `a batch is sent as it is: Content-Encoding ${coding} is not decoded here; send the body without it`,
    );
  }
  return request.body;
}

/**
 * Batches applied at once by one serving process: each holds a database connection while it
 * waits its turn to be written, so one more than `max` is answered 429 rather than queued.
 */
export class BatchSlots {
  #taken = 0;

  constructor(private readonly max: number) {}

  /** A slot for one batch, or 429; the returned function gives it back. */
  take(): () => void {
    if (this.#taken >= this.max) {
      throw new ApiError(
        'rate_limited',
        `${this.max} batches are being applied: send this one again in a second`,
        { 'retry-after': '1' },
      );
    }
    this.#taken += 1;
    let given = false;
    return () => {
      if (given) return;
      given = true;
      this.#taken -= 1;
    };
  }
}
