import { type TSchema, Type } from 'typebox';

/** Spec, Error envelope: used for every error. */
export const ErrorEnvelope = Type.Object(
  {
    error: Type.Object(
      {
        code: Type.String({ description: 'A stable snake_case code, e.g. invalid_parameter.' }),
        message: Type.String({
          description: 'What is wrong, in words; may change between releases.',
        }),
      },
      { additionalProperties: false },
    ),
  },
  { title: 'Error', additionalProperties: false },
);

const DESCRIPTIONS: Record<number, string> = {
  400: 'invalid_parameter: a bad or unknown parameter or body field. Fix the request; do not retry.',
  401: 'unauthorized (a key or session missing, malformed, unknown, revoked or expired, or its account deactivated), or invalid_credentials / invalid_code on the portal. Do not retry with the same credentials.',
  403: "forbidden: the campaign exists but is outside the key's scope (portal: step_up_required, password_change_required, or account_locked, which an operator must lift). Do not retry.",
  404: 'not_found: no such campaign (or it was deleted), key, device or route. Do not retry.',
  409: 'conflict, already_revealed or not_revealable.',
  410: 'full_sync_required: the removals feed cannot vouch for removals since that instant (tombstones that old were purged, or were not kept yet). Re-read the whole campaign without since, then follow the feed from the until of a removals answer taken before that pass.',
  413: 'payload_too_large: the body is over the limit.',
  429: 'rate_limited: wait Retry-After seconds, then retry the same request (R3). Do not open parallel connections to get around it.',
  500: 'internal_error: an unexpected failure, logged under the X-Request-Id. Retry once with backoff, then alert.',
  503: 'service_unavailable: the store (or mail) is unreachable. Retry after Retry-After seconds.',
};

/** The error responses of a route, each the envelope with a description of when it happens. */
export function errorResponses(...statuses: number[]): Record<number, TSchema> {
  const responses: Record<number, TSchema> = {};
  for (const status of statuses) {
    responses[status] = Type.Object(ErrorEnvelope.properties, {
      title: 'Error',
      additionalProperties: false,
      description: DESCRIPTIONS[status] ?? 'An error.',
    });
  }
  return responses;
}

/** Conditional GET: the 304 a data route answers when If-None-Match names its current ETag. */
export const NOT_MODIFIED = {
  304: Type.Null({
    description:
      'Not Modified: the ETag in If-None-Match is current. No body; not counted against the rate limit.',
  }),
};
