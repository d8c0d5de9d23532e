import type { FastifyRequest } from 'fastify';
import { ApiError } from '../errors.ts';

/** A posted form's fields, as @fastify/formbody parsed them; a missing one is undefined. */
export type Form = Record<string, string | undefined>;

export const formOf = (request: FastifyRequest): Form => (request.body ?? {}) as Form;

/** The status a refused form is answered with: the API's for the same refusal. */
export const statusOf = (error: unknown) => (error instanceof ApiError ? error.status : 500);

/**
 * The six digits of a typed or pasted code ("123 456" and "123-456" too); anything else is a
 * wrong code, refused before any is spent.
 */
export function codeOf(text: string | undefined): string {
  const code = (text ?? '').replace(/[\s-]/g, '');
  if (!/^\d{6}$/.test(code)) throw new ApiError('invalid_code', 'not six digits');
  return code;
}
