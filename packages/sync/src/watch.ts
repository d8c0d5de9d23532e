import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import {
  HadirClient,
  type HadirClientOptions,
  type HadirEvent,
  HadirWebhookReplayError,
  verifyWebhook,
  WebhookReplayGuard,
} from '@hadir/client';
import type { Mirror } from './mirror.js';
import { type CampaignResult, runSync, type SyncOptions } from './sync.js';

export interface WatchOptions {
  sync: Omit<SyncOptions, 'full' | 'restart'>;
  /** Where notifications are received; nothing listens without secrets. */
  listen: { host: string; port: number };
  /** The endpoint's signing secrets (two during a rotation); none: poll only. */
  secrets: readonly string[];
  /** The safety poll: each campaign's summary is asked for, conditionally, this often. */
  pollIntervalMs: number;
  /** Notifications of one burst are gathered this long into one sync. */
  gatherMs?: number;
}

export interface WatchDeps {
  mirror: Mirror;
  client?: Partial<HadirClientOptions>;
  log: (line: string) => void;
  onSynced?: (results: CampaignResult[]) => void;
}

/** The earlier of two ISO times, either possibly unknown. */
function earliest(a: string | undefined, b: string | undefined): string | undefined {
  if (a === undefined) return b;
  if (b === undefined) return a;
  return a < b ? a : b;
}

/** Bodies larger than this are not Hadir's (its notifications stay under 20 kB). */
const MAX_BODY_BYTES = 64 * 1024;

/**
 * Keeps a mirror fresh: listens for signed notifications and runs an incremental sync (removals
 * included) of each campaign named, gathering bursts and never running two syncs at once; a safety
 * poll with conditional requests (free of the rate limit) catches a lost notification.
 */
export class SyncWatcher {
  readonly #options: WatchOptions;
  readonly #deps: WatchDeps;
  readonly #client: HadirClient;
  /** Campaigns to sync next, each with the earliest `since` its notifications named. */
  readonly #pending = new Map<string, string | undefined>();
  /** The `since` of notifications whose sync failed: the next sync of the campaign reads from it. */
  readonly #owed = new Map<string, string>();
  readonly #etags = new Map<string, string | undefined>();
  /** Notifications already taken, so that one replayed within its 5 minutes is not taken again. */
  readonly #replays = new WebhookReplayGuard();
  #draining: Promise<void> | undefined;
  #server: Server | undefined;
  #poll: NodeJS.Timeout | undefined;
  #stopped = false;

  constructor(options: WatchOptions, deps: WatchDeps) {
    this.#options = options;
    this.#deps = deps;
    this.#client = new HadirClient({
      baseUrl: options.sync.baseUrl,
      apiKey: options.sync.apiKey,
      ...deps.client,
    });
  }

  /** Brings the mirror up to date, then listens and polls; returns where it listens. */
  async start(): Promise<{ url: string | undefined }> {
    await this.#sync(new Map(this.#options.sync.campaigns.map((id) => [id, undefined])));
    let url: string | undefined;
    if (this.#options.secrets.length > 0) {
      this.#server = createServer((request, response) => {
        this.#receive(request).then(
          ({ status, message }) => response.writeHead(status).end(message),
          () => response.writeHead(500).end(),
        );
      });
      const { host, port } = this.#options.listen;
      await new Promise<void>((resolve, reject) => {
        this.#server?.once('error', reject);
        this.#server?.listen(port, host, resolve);
      });
      const address = this.#server.address() as AddressInfo;
      url = `http://${address.family === 'IPv6' ? `[${address.address}]` : address.address}:${address.port}/`;
    }
    this.#schedulePoll();
    return { url };
  }

  async stop(): Promise<void> {
    this.#stopped = true;
    clearTimeout(this.#poll);
    if (this.#server) {
      this.#server.closeAllConnections();
      await new Promise((resolve) => this.#server?.close(resolve));
    }
    await this.#draining;
  }

  async #receive(request: IncomingMessage): Promise<{ status: number; message: string }> {
    if (request.method !== 'POST') return { status: 405, message: 'POST notifications here' };
    const chunks: Buffer[] = [];
    let size = 0;
    for await (const chunk of request) {
      size += (chunk as Buffer).length;
      if (size > MAX_BODY_BYTES) return { status: 413, message: 'too large' };
      chunks.push(chunk as Buffer);
    }
    let event: HadirEvent;
    try {
      // The raw bytes as received: a parsed and rewritten body would not verify.
      event = verifyWebhook({
        secret: this.#options.secrets,
        headers: request.headers,
        body: Buffer.concat(chunks),
        replayGuard: this.#replays,
      });
    } catch (error) {
      // Taken before: answered as taken, so that Hadir does not try again, and not taken twice.
      if (error instanceof HadirWebhookReplayError) {
        this.#deps.log(`ignored a notification received before (${error.messageId})`);
        return { status: 204, message: '' };
      }
      this.#deps.log(`refused a notification: ${(error as Error).message}`);
      return { status: 401, message: 'not verified' };
    }
    this.#take(event);
    return { status: 204, message: '' };
  }

  #take(event: HadirEvent): void {
    if (event.type === 'webhook.test') {
      this.#deps.log(`test notification from endpoint ${event.data.endpointId}`);
      return;
    }
    if (event.type === 'key.expiring') {
      this.#deps.log(`the API key expires ${event.data.expiresAt}: rotate it in the portal`);
      return;
    }
    const watched = this.#options.sync.campaigns;
    if (watched.length > 0 && !watched.includes(event.data.campaignId)) return;
    this.#schedule(
      event.data.campaignId,
      event.type === 'respondents.changed' ? event.data.since : undefined,
    );
  }

  #schedule(campaignId: string, since?: string): void {
    this.#pending.set(campaignId, earliest(this.#pending.get(campaignId), since));
    if (this.#draining || this.#stopped) return;
    this.#draining = (async () => {
      await new Promise((resolve) => setTimeout(resolve, this.#options.gatherMs ?? 200));
      while (this.#pending.size > 0 && !this.#stopped) {
        const campaigns = new Map(this.#pending);
        this.#pending.clear();
        await this.#sync(campaigns);
      }
    })().finally(() => {
      this.#draining = undefined;
    });
  }

  /** Syncs these campaigns (none: every one), each from the earliest `since` named for it. */
  async #sync(campaigns: ReadonlyMap<string, string | undefined>): Promise<void> {
    const changedSince: Record<string, string> = {};
    for (const [id, since] of campaigns) {
      const from = earliest(since, this.#owed.get(id));
      if (from !== undefined) changedSince[id] = from;
    }
    try {
      const results = await runSync(
        { ...this.#options.sync, campaigns: [...campaigns.keys()], full: false, changedSince },
        { mirror: this.#deps.mirror, ...(this.#deps.client ? { client: this.#deps.client } : {}) },
      );
      for (const result of results) {
        this.#deps.log(
          `${result.campaignId}: ${result.rows} rows, ${result.removed} removed, watermark ${result.watermark ?? 'none'}`,
        );
      }
      for (const id of campaigns.keys()) this.#owed.delete(id);
      this.#deps.onSynced?.(results);
    } catch (error) {
      // Nothing named is forgotten: the next sync reads from the same `since`, and the next poll
      // syncs the campaigns even if their summaries do not change again.
      for (const [id, from] of Object.entries(changedSince)) this.#owed.set(id, from);
      for (const id of campaigns.keys()) this.#etags.delete(id);
      this.#deps.log(
        `sync of ${[...campaigns.keys()].join(', ') || 'every campaign'} failed: ${(error as Error).message}; the next notification or poll tries again`,
      );
    }
  }

  #schedulePoll(): void {
    if (this.#stopped) return;
    this.#poll = setTimeout(() => {
      this.#pollOnce().finally(() => this.#schedulePoll());
    }, this.#options.pollIntervalMs);
    this.#poll.unref();
  }

  /** Asks each campaign's summary, conditionally; a campaign whose summary changed is synced. */
  async #pollOnce(): Promise<void> {
    try {
      const watched = this.#options.sync.campaigns;
      const ids =
        watched.length > 0
          ? watched
          : (await this.#client.campaigns()).map((campaign) => campaign.id);
      for (const id of ids) {
        const known = this.#etags.get(id);
        const answer = await this.#client.summaryIfChanged(id, known);
        if (answer === 'unchanged') continue;
        // Changed since the last look (or first looked at): whatever changed is synced.
        this.#etags.set(id, answer.etag);
        this.#schedule(id);
      }
    } catch (error) {
      this.#deps.log(`safety poll failed: ${(error as Error).message}`);
    }
  }
}
