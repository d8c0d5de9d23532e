import { createRequire } from 'node:module';

let commonPasswords: ReadonlySet<string> | undefined;

/**
 * True for one of the ~49,000 most common passwords (zxcvbn's list), compared without case after
 * NFKC. The list is loaded on first use and kept: loading it costs a process about 15 MB, which a
 * server that never sets a password does not pay.
 */
export function isCommonPassword(password: string): boolean {
  commonPasswords ??= loadCommonPasswords();
  return commonPasswords.has(password.normalize('NFKC').toLowerCase());
}

function loadCommonPasswords(): ReadonlySet<string> {
  const { dictionary } = createRequire(import.meta.url)('@zxcvbn-ts/language-common') as {
    dictionary: Record<string, unknown>;
  };
  return new Set(dictionary['passwords-common'] as string[]);
}
