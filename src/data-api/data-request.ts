import type { ReadAhead } from '../campaigns/campaigns.service.ts';
import type { DataReads } from './data-reads.ts';

declare module 'fastify' {
  interface FastifyRequest {
    /** The campaign read its route needs, started while the key is checked (the door's). */
    readAhead: ReadAhead | undefined;
    /** Where this request's answer is read: the primary, or the replica, chosen once. */
    reads: DataReads;
  }
}
