import { dictionary } from '@zxcvbn-ts/language-common';

let commonPasswords: ReadonlySet<string> | undefined;

/**
 * True for one of the ~49,000 most common passwords (zxcvbn's list), compared without case after
 * NFKC. The list is loaded on first use and kept.
 */
export function isCommonPassword(password: string): boolean {
  commonPasswords ??= new Set(dictionary['passwords-common'] as string[]);
  return commonPasswords.has(password.normalize('NFKC').toLowerCase());
}
