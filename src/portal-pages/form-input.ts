import type { FastifyRequest } from 'fastify';
import { ApiError } from '../errors.ts';
import { PasswordRuleError } from '../portal/password-change.ts';

/** A posted form's fields, as @fastify/formbody parsed them; a missing one is undefined. */
export type Form = Record<string, string | undefined>;

export const formOf = (request: FastifyRequest): Form => (request.body ?? {}) as Form;

/** What is wrong with a request no page of ours would send, in a form the page can name. */
export type FormProblem =
  | { kind: 'repeated' | 'control'; field: string }
  | { kind: 'too_large' | 'type' | 'unreadable' };

// C0 controls, DEL and C1 controls: none belongs in an address, a code, a password or a path.
// biome-ignore lint/suspicious/noControlCharactersInRegex: finding control characters is its job.
const CONTROL = /[\u0000-\u001f\u007f-\u009f]/;

/**
 * The first thing wrong with a request's fields (form, query, path): a field given twice, or a
 * control character; undefined when each field is one plain text. Checked before any route
 * reads them, so routes take their fields as strings.
 */
export function formProblem(request: FastifyRequest): FormProblem | undefined {
  for (const part of [request.params, request.query, request.body]) {
    if (part === undefined || part === null) continue;
    if (typeof part !== 'object') return { kind: 'unreadable' };
    for (const [field, value] of Object.entries(part as Record<string, unknown>)) {
      const name = printableName(field);
      if (Array.isArray(value)) return { kind: 'repeated', field: name };
      if (typeof value !== 'string') return { kind: 'unreadable' };
      if (CONTROL.test(field) || CONTROL.test(value)) return { kind: 'control', field: name };
    }
  }
  return undefined;
}

/** A field's name as a page may repeat it: short, and without anything unprintable. */
function printableName(field: string): string {
  return field.replace(/[^\x20-\x7e]/g, '?').slice(0, 40);
}

/** A new password typed twice, differently: refused before anything is spent. */
export class PasswordsDifferError extends ApiError {
  constructor() {
    super('invalid_parameter', 'the two new passwords differ');
  }
}

/** Whether a refusal is the new password's: it belongs next to the new-password fields. */
export function isNewPasswordRefusal(error: unknown): boolean {
  return error instanceof PasswordRuleError || error instanceof PasswordsDifferError;
}

/** The new password of a form that asks for it twice. */
export function newPasswordOf(form: Form): string {
  const password = form.newPassword ?? '';
  if (password !== (form.newPasswordAgain ?? '')) throw new PasswordsDifferError();
  return password;
}

/**
 * The six digits of a typed or pasted code ("123 456" and "123-456" too); anything else is a
 * wrong code, refused before any is spent.
 */
export function codeOf(text: string | undefined): string {
  const code = (text ?? '').replace(/[\s-]/g, '');
  if (!/^\d{6}$/.test(code)) throw new ApiError('invalid_code', 'not six digits');
  return code;
}
