/**
 * Writes openapi/openapi.json from the route schemas, then the SDK's types from it, and
 * openapi/ingest.json from the ingest schemas, then the relay's types from it; tests fail when a
 * committed copy is stale.
 */
import { writeFileSync } from 'node:fs';
import pino from 'pino';
import { systemClock } from '../src/clock.ts';
import { openStore } from '../src/db/connect.ts';
import { buildReference } from '../src/docs/reference.ts';
import { buildApp } from '../src/serving/app.ts';
import { assembleServices } from '../src/serving/services.ts';
import {
  CLIENT_TYPES_FILE,
  clientTypes,
  INGEST_DOCUMENT_FILE,
  ingestDocumentText,
  OPENAPI_FILE,
  RELAY_TYPES_FILE,
  relayTypes,
} from './client-types.ts';

const store = openStore('sqlite::memory:');
const services = await assembleServices({
  store,
  clock: systemClock,
  logger: pino({ level: 'silent' }),
  config: { rateLimitPerMinute: 120, anonymousRateLimitPerMinute: 60 },
  secrets: {
    codeHmacKey: Buffer.alloc(32),
    keySealKey: Buffer.alloc(32),
    cursorKey: Buffer.alloc(32),
  },
  mailer: { send: async () => {}, close: () => {} },
  portal: {
    publicUrl: () => 'http://127.0.0.1:3000',
    sessionIdleMs: 1,
    sessionAbsoluteMs: 1,
    addressAttemptsPerMinute: 1,
  },
});
const app = await buildApp(services);
await app.ready();
writeFileSync(OPENAPI_FILE, buildReference(app.swagger()).openapi.body);
await app.close();
await services.close();
await store.close();
writeFileSync(CLIENT_TYPES_FILE, await clientTypes());
writeFileSync(INGEST_DOCUMENT_FILE, await ingestDocumentText());
writeFileSync(RELAY_TYPES_FILE, await relayTypes());
