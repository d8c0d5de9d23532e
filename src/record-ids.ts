/**
 * Campaign and respondent ids, as the import accepts them: 1 to 128 characters that need no
 * escaping anywhere they travel (RFC 3986's unreserved set). Any stored id can then be named in
 * a URL path as it is and in an operator's `--scope ID=…`, and no id is too long for a route.
 */
export const MAX_ID_LENGTH = 128;

const RECORD_ID = /^[A-Za-z0-9._~-]{1,128}$/;

export function isRecordId(value: string): boolean {
  return RECORD_ID.test(value);
}

/** Why a value is not an id, in words an operator can act on. */
export const RECORD_ID_RULE = `1 to ${MAX_ID_LENGTH} characters from A-Z, a-z, 0-9 and . _ ~ -`;
