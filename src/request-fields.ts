/**
 * What a request carries, declared in one place. Each field is set by one hook, named beside it;
 * a handler reads only what its door has set before it runs.
 */
import type { CampaignRoute, ResolvedCampaign } from './campaigns/campaign-request.ts';
import type { DataReads } from './data-api/data-reads.ts';
import type { Disclosed, Door } from './disclosures/disclosure.ts';
import type { AccessRecord } from './http/request-context.ts';
import type { IngestTokenRecord } from './ingest/ingest-tokens.repository.ts';
import type { AuthenticatedKey, KeyVerification } from './keys/keys.service.ts';
import type { PageQuery, Paging } from './paging/page-query.ts';
import type { SessionPrincipal } from './portal/portal.service.ts';

declare module 'fastify' {
  interface FastifyContextConfig {
    /** Set on the data routes about one campaign (see CampaignRoute). */
    campaign?: CampaignRoute;
    /**
     * Set on the data routes whose answers carry respondents: the door they leave by, unless an
     * MCP tool asked (see doorOf in data-api.ts).
     */
    discloses?: Extract<Door, 'api' | 'changes' | 'removals'>;
    /** Portal routes a session may use while its account must change its password first. */
    allowedBeforePasswordChange?: boolean;
  }

  interface FastifyRequest {
    // Every request (http/request-context.ts).
    /** Set when the client closed the connection before its answer was sent. */
    clientGone: boolean;
    /** Identifiers and counts for the access log, never a value. */
    accessRecord?: AccessRecord;

    // The data API's door (data-api/data-api.ts), in the order it sets them.
    /** Where this request's answer is read: the primary, or the replica, chosen once. */
    reads: DataReads;
    /** Set by key authentication on every data route, before the rate limit runs. */
    keyVerification?: KeyVerification;
    /** The key the request was made with, once the door has checked it. */
    key: AuthenticatedKey;
    /** Set by the rate limit on conditional requests: counts one that gets a full response. */
    chargeRateLimit: (() => Promise<void>) | null;
    /** The route's paging query, read by the door with the route's paging. */
    pageQuery: { paging: Paging<unknown>; query: PageQuery<unknown> } | undefined;
    /** The route's campaign, resolved by the door: present or refused before the handler. */
    campaign: ResolvedCampaign | undefined;
    /** Who the answer carries, set by its handler: recorded before the answer leaves. */
    disclosed: Disclosed | undefined;

    // The portal's session check (portal/portal.routes.ts).
    principal?: SessionPrincipal;

    // The ingest door (ingest/ingest.routes.ts), set before the body is read.
    ingestToken: IngestTokenRecord;
  }
}
