/** A plain number as people type one: no leading zero, no sign but minus, no exponent. */
const PLAIN_NUMBER = /^-?(0|[1-9][0-9]{0,14})(\.[0-9]{1,10})?$/;

/**
 * The number an answer to a NUMBER question holds when it is a plain number ("2", "-1.5"), so
 * that a file's column adds up; undefined for anything else ("dua", "2 orang", "02", blank).
 */
export function plainNumberOf(value: string | string[] | undefined): number | undefined {
  return typeof value === 'string' && PLAIN_NUMBER.test(value) ? Number(value) : undefined;
}
