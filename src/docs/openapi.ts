import swagger from '@fastify/swagger';
import type { FastifyInstance } from 'fastify';
import { GUIDE } from './guide.ts';
import {
  declareAnswerFilters,
  declareHeaders,
  eventWebhooks,
  nameSchemas,
  type OpenApiDocument,
} from './openapi-components.ts';

export const API_VERSION = '1.0.0';

/** Sorts object keys at every depth, so the generated document diffs cleanly. */
export function sortKeys(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(sortKeys);
  if (value === null || typeof value !== 'object') return value;
  return Object.fromEntries(
    Object.keys(value)
      .sort()
      .map((key) => [key, sortKeys((value as Record<string, unknown>)[key])]),
  );
}

/**
 * Registers the OpenAPI generator: every route's schema (the same one that validates requests and
 * shapes responses) becomes part of the document. Register before the routes.
 */
export async function registerOpenApi(app: FastifyInstance): Promise<void> {
  await app.register(swagger, {
    transformObject: (documentObject) => {
      if (!('openapiObject' in documentObject)) throw new Error('expected an OpenAPI 3 document');
      const document = documentObject.openapiObject as OpenApiDocument;
      document.webhooks = eventWebhooks();
      nameSchemas(document);
      declareHeaders(document);
      declareAnswerFilters(document);
      return document;
    },
    openapi: {
      openapi: '3.1.0',
      info: {
        title: 'Hadir RSVP data API',
        version: API_VERSION,
        description: [
          'Read-only access for approved third parties to RSVP campaign data: campaigns, attendance totals, per-question breakdowns and respondent rows.',
          'Every data request is a GET with an API key as bearer token. A key reads an explicit list of campaigns, and within each an explicit allow-list of field keys; the operator sets both.',
          'The four client rules: R1 the field set varies per key (absent, never null); R2 page until page >= meta.totalPages, read fresh each time; R3 on 429 wait Retry-After seconds and retry the same request; R4 submittedAt is last-modified: upsert by id.',
          'Limits: 120 requests per minute per key (RateLimit-Limit, RateLimit-Remaining and RateLimit-Reset on every data answer); limit 1 to 200, default 50. Timestamps are UTC; campaign data is Indonesian, shown in Asia/Jakarta by preference.',
          'Errors are { "error": { "code", "message" } }. Bad parameters are 400 invalid_parameter. Every response carries X-Request-Id.',
          ...GUIDE.map((section) => `# ${section.title}\n\n${section.markdown}`),
        ].join('\n\n'),
        // The package is UNLICENSED: proprietary, all rights reserved (an SPDX LicenseRef).
        license: { name: 'Proprietary, all rights reserved', identifier: 'LicenseRef-Proprietary' },
      },
      // Relative: the document is served by the service it describes, at whatever origin.
      servers: [{ url: '/', description: 'The service that serves this document.' }],
      tags: [
        { name: 'Data', description: 'The read-only data interface (API key).' },
        {
          name: 'Notifications',
          description:
            "Signed change notifications (Standard Webhooks) Hadir posts to a key's endpoints: ids, counts and times, never an answer.",
        },
        {
          name: 'Portal',
          description: 'Account sign-in, devices, step-up and key management (session).',
        },
      ],
      components: {
        securitySchemes: {
          apiKey: {
            type: 'http',
            scheme: 'bearer',
            bearerFormat:
              'hadir_sk_ followed by 64 lowercase hex characters (an opaque key, not a JWT)',
            description: 'Issued by the operator and shown once. Server-side use only.',
          },
          session: {
            type: 'http',
            scheme: 'bearer',
            bearerFormat: 'hadir_ses_ followed by 64 lowercase hex characters',
            description: 'From POST /developer/auth/verify-otp (or login with a trusted device).',
          },
        },
      },
    },
  });
}
