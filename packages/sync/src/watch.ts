import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import {
  HadirApiError,
  type HadirClient,
  type HadirClientOptions,
  type HadirEvent,
  HadirWebhookReplayError,
  verifyWebhook,
  WebhookReplayGuard,
} from '@hadir/client';
import { BudgetPacer } from './budget.js';
import type { Mirror } from './mirror.js';
import { plural } from './progress.js';
import {
  type CampaignResult,
  type Described,
  type QuietTags,
  refreshCampaigns,
  type SyncOptions,
  type SyncProgress,
  syncCampaign,
  syncClient,
  syncWith,
} from './sync.js';

export interface WatchOptions {
  sync: Omit<SyncOptions, 'full' | 'restart'>;
  /** Where notifications are received; nothing listens without secrets. */
  listen: { host: string; port: number };
  /** The endpoint's signing secrets (two during a rotation); none: poll only. */
  secrets: readonly string[];
  /** The safety poll: each campaign's changes are asked for, conditionally, this often. */
  pollIntervalMs: number;
  /** Notifications after a quiet spell are gathered this long into one sync. */
  gatherMs?: number;
  /** The share of the key's budget the watch spends at most (default 0.45). */
  budgetShare?: number;
  /** How often campaigns' descriptions (list, summary, fields) are refreshed while they change. */
  describeEveryMs?: number;
  /** A line for every sync that brought anything (--verbose); else one a minute, with counts. */
  verbose?: boolean;
}

export interface WatchDeps {
  mirror: Mirror;
  client?: Partial<HadirClientOptions>;
  log: (line: string) => void;
  onSynced?: (results: CampaignResult[]) => void;
  /** The clock of the progress lines and the minute's summaries (tests move it). */
  now?: () => number;
}

/** A long sync says how far it is at least this often. */
export const PROGRESS_EVERY_MS = 5_000;
/** Steady syncing is summed up once this long. */
export const SUMMARY_EVERY_MS = 60_000;

/** Why a watch stopped by itself: the service refused its key, and retrying cannot help. */
export class WatchStopped extends Error {}

/** Bodies larger than this are not Hadir's (its notifications stay under 20 kB). */
const MAX_BODY_BYTES = 64 * 1024;
export const DEFAULT_BUDGET_SHARE = 0.45;
/**
 * A campaign notified of within this long is read again as soon as the budget's spacing allows,
 * without waiting for its next notification: Hadir tells of a steady stream about once a second
 * (CHANGE_WINDOW_MS), and a change made just after one would otherwise wait for the next.
 */
const HOT_MS = 2_000;
/** A hot campaign is read again at most this often, whatever the budget would allow. */
const REREAD_MS = 1_000;
const DEFAULT_DESCRIBE_EVERY_MS = 60_000;

/** The next step for a key the service refused (401), in words. */
function deadKeyMessage(error: HadirApiError): string {
  return `the service refused the API key (401: ${error.message}): it was revoked, has expired, or is unknown. Ask for a new key (or rotate it in the portal), put it in the key's environment variable or file, and start hadir-sync watch again`;
}

/**
 * Keeps a mirror fresh: listens for signed notifications and reads each named campaign's changes
 * feed from its watermark, never two syncs at once, within a share of the key's budget (the rest
 * stays with the key's other clients); a safety poll asks each campaign's feed conditionally (a
 * `304` is free) to catch a lost notification. It says what it waits for, and stops when the
 * service refuses its key.
 */
export class SyncWatcher {
  readonly #options: WatchOptions;
  readonly #deps: WatchDeps;
  readonly #client: HadirClient;
  readonly #pacer: BudgetPacer;
  /** Campaigns to sync next. */
  readonly #pending = new Set<string>();
  /** When each campaign was last named by a notification. */
  readonly #notifiedAt = new Map<string, number>();
  /** Whether campaigns' descriptions are due for a refresh (a campaign changed, or was added). */
  #describeDue = false;
  #describedAt = 0;
  readonly #described: Described = { etags: new Map() };
  readonly #quiet: QuietTags = new Map();
  /** Notifications already taken, so that one replayed within its 5 minutes is not taken again. */
  readonly #replays = new WebhookReplayGuard();
  #draining: Promise<void> | undefined;
  #server: Server | undefined;
  #poll: NodeJS.Timeout | undefined;
  #stopped = false;
  #stop: ((error: WatchStopped) => void) | undefined;
  /** Settles when the watch stops by itself (rejects with WatchStopped); never on stop(). */
  readonly stoppedByItself: Promise<never>;
  readonly #now: () => number;
  /** When the last progress line was written. */
  #progressAt = Number.NEGATIVE_INFINITY;
  /** What syncs brought since the last summary, and when that was. */
  #since = { at: 0, syncs: 0, rows: 0, removed: 0, campaigns: new Set<string>() };
  #summaries: NodeJS.Timeout | undefined;

  constructor(options: WatchOptions, deps: WatchDeps) {
    this.#options = options;
    this.#deps = deps;
    this.#now = deps.now ?? Date.now;
    this.#since.at = this.#now();
    const log = deps.log;
    this.#pacer = new BudgetPacer({
      share: options.budgetShare ?? DEFAULT_BUDGET_SHARE,
      onWait: (ms, reason) => {
        if (ms >= 5_000) log(`pacing: waiting ${(ms / 1000).toFixed(1)} s (${reason})`);
      },
    });
    const pacer = this.#pacer;
    const transport = deps.client?.fetch ?? globalThis.fetch;
    this.#client = syncClient(
      options.sync,
      {
        ...deps.client,
        fetch: async (input, init) => {
          await pacer.turn(new Headers(init?.headers).has('if-none-match'));
          return transport(input, init);
        },
        onAnswer: (event) => {
          pacer.observe(event);
          deps.client?.onAnswer?.(event);
        },
        onRateLimit: (event) => {
          log(
            `rate limited (429): waiting ${event.retryAfterSeconds} s, as Retry-After asks, then the same request again`,
          );
          deps.client?.onRateLimit?.(event);
        },
        onRetry: (event) => {
          log(
            `${event.reason.startsWith('HTTP 503') ? 'service busy (503)' : event.reason}: retrying in ${(event.delayMs / 1000).toFixed(1)} s (attempt ${event.attempt})`,
          );
          deps.client?.onRetry?.(event);
        },
      },
      () => {},
    );
    this.stoppedByItself = new Promise<never>((_, reject) => {
      this.#stop = reject;
    });
    this.stoppedByItself.catch(() => {});
  }

  /** Counted requests a minute the watch allows itself. */
  get requestsPerMinute(): number {
    return this.#pacer.perMinute;
  }

  /** Brings the mirror up to date, then listens and polls; returns where it listens. */
  async start(): Promise<{ url: string | undefined }> {
    const results = await syncWith(
      this.#client,
      { ...this.#options.sync, full: false },
      {
        mirror: this.#deps.mirror,
        quiet: this.#quiet,
        described: this.#described,
        onProgress: (progress) => this.#progress(progress),
      },
    ).catch((error: unknown) => {
      throw error instanceof HadirApiError && error.status === 401
        ? new WatchStopped(deadKeyMessage(error))
        : error;
    });
    this.#describedAt = Date.now();
    // The first sync is told campaign by campaign; what follows, a minute at a time.
    this.#report(results, true);
    if (!this.#options.verbose) {
      this.#summaries = setInterval(() => this.#summarise(true), SUMMARY_EVERY_MS);
      this.#summaries.unref();
    }
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
    clearInterval(this.#summaries);
    if (this.#server) {
      this.#server.closeAllConnections();
      await new Promise((resolve) => this.#server?.close(resolve));
    }
    await this.#draining;
    this.#summarise(true);
  }

  /** How far a sync is, at most every PROGRESS_EVERY_MS (a first sync may take a while). */
  #progress(progress: SyncProgress): void {
    const now = this.#now();
    if (now - this.#progressAt < PROGRESS_EVERY_MS) return;
    this.#progressAt = now;
    this.#deps.log(
      `${progress.campaignId}: ${progress.rows.toLocaleString('en')} of ${progress.total.toLocaleString('en')} rows so far, ${plural(progress.pages, 'page')}`,
    );
  }

  /** The syncs since the last summary in one line, once SUMMARY_EVERY_MS has passed (or `now`). */
  #summarise(due = false): void {
    const since = this.#since;
    const now = this.#now();
    if (!due && now - since.at < SUMMARY_EVERY_MS) return;
    if (since.syncs > 0) {
      const minutes = Math.max(1, Math.round((now - since.at) / 60_000));
      this.#deps.log(
        `in the last ${minutes === 1 ? 'minute' : `${minutes} minutes`}: ${plural(since.syncs, 'sync')} of ${plural(since.campaigns.size, 'campaign')}, ${plural(since.rows, 'row')} changed, ${since.removed.toLocaleString('en')} removed`,
      );
    }
    this.#since = { at: now, syncs: 0, rows: 0, removed: 0, campaigns: new Set() };
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
    // A stopped watch takes nothing: Hadir keeps the notification for a later try.
    if (this.#stopped) return { status: 503, message: 'stopped' };
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
    if (event.type.startsWith('campaign.')) this.#describeDue = true;
    this.#notifiedAt.set(event.data.campaignId, Date.now());
    this.#schedule(event.data.campaignId);
  }

  /** Syncs the campaign soon (none: only the campaigns' descriptions, and new campaigns). */
  #schedule(campaignId?: string): void {
    if (campaignId !== undefined) this.#pending.add(campaignId);
    if (this.#draining || this.#stopped) return;
    this.#draining = (async () => {
      await new Promise((resolve) => setTimeout(resolve, this.#options.gatherMs ?? 200));
      while ((this.#pending.size > 0 || this.#describeDue) && !this.#stopped) {
        const campaigns = [...this.#pending];
        this.#pending.clear();
        const started = Date.now();
        await this.#sync(campaigns);
        const named = this.#pending.size > 0;
        for (const id of campaigns) {
          if (Date.now() - (this.#notifiedAt.get(id) ?? 0) < HOT_MS) this.#pending.add(id);
        }
        // Read again unasked no sooner than REREAD_MS after the last read began.
        const wait = started + REREAD_MS - Date.now();
        if (!named && this.#pending.size > 0 && wait > 0) {
          await new Promise((resolve) => setTimeout(resolve, wait));
        }
      }
    })().finally(() => {
      this.#draining = undefined;
    });
  }

  /** Reads these campaigns' changes (descriptions too, when due); what fails is tried again. */
  async #sync(campaigns: readonly string[]): Promise<void> {
    const deps = {
      mirror: this.#deps.mirror,
      quiet: this.#quiet,
      described: this.#described,
      onProgress: (progress: SyncProgress) => this.#progress(progress),
    };
    const results: CampaignResult[] = [];
    const watched = this.#options.sync.campaigns;
    const wanted = [...campaigns];
    try {
      const mirrored = new Set(await this.#deps.mirror.campaignIds());
      const describe =
        this.#describeDue ||
        campaigns.some((id) => !mirrored.has(id)) ||
        Date.now() - this.#describedAt >=
          (this.#options.describeEveryMs ?? DEFAULT_DESCRIBE_EVERY_MS);
      let readable: Set<string> | undefined;
      if (describe) {
        const described = await refreshCampaigns(
          this.#client,
          { campaigns: this.#options.sync.campaigns },
          deps,
        );
        this.#describeDue = false;
        this.#describedAt = Date.now();
        results.push(...described.results);
        readable = new Set(described.readable.map((campaign) => campaign.id));
        // With --all, a campaign the key reads now and the mirror lacks is read whole.
        if (watched.length === 0) {
          for (const id of readable) if (!mirrored.has(id) && !wanted.includes(id)) wanted.push(id);
        }
      }
      for (const campaignId of wanted) {
        if (readable && !readable.has(campaignId)) continue;
        if (!readable && !mirrored.has(campaignId)) continue;
        results.push(
          await syncCampaign(
            this.#client,
            campaignId,
            { ...this.#options.sync, full: false },
            deps,
          ),
        );
      }
      await this.#deps.mirror.scrubRemoved();
    } catch (error) {
      if (error instanceof HadirApiError && error.status === 401) {
        this.#deps.log(deadKeyMessage(error));
        this.#stopped = true;
        clearTimeout(this.#poll);
        this.#stop?.(new WatchStopped(deadKeyMessage(error)));
        return;
      }
      // Nothing named is forgotten: each campaign's watermark moves only after a whole walk, so
      // the next notification or poll reads from where this one began.
      this.#deps.log(
        `sync of ${wanted.join(', ') || 'the campaign list'} failed: ${(error as Error).message}; the next notification or poll tries again`,
      );
    }
    this.#report(results);
  }

  /**
   * What syncs brought: a line each for the first sync and with --verbose, else summed up once a
   * minute. A read that found nothing new is not worth a line, nor a report; why a campaign was
   * read whole again always is.
   */
  #report(results: readonly CampaignResult[], first = false): void {
    const changed = results.filter(
      (result) => result.pages > 0 || result.removed > 0 || result.fullBecause !== undefined,
    );
    const each = first || this.#options.verbose === true;
    for (const result of changed) {
      if (result.fullBecause) this.#deps.log(`${result.campaignId}: ${result.fullBecause}`);
      if (each) {
        this.#deps.log(
          `${result.campaignId}: ${result.rows} rows, ${result.removed} removed, watermark ${result.watermark ?? 'none'}`,
        );
      } else {
        this.#since.syncs += 1;
        this.#since.rows += result.rows;
        this.#since.removed += result.removed;
        this.#since.campaigns.add(result.campaignId);
      }
    }
    if (!each) this.#summarise();
    if (changed.length > 0) this.#deps.onSynced?.(changed);
  }

  #schedulePoll(): void {
    if (this.#stopped) return;
    this.#poll = setTimeout(() => {
      this.#pollOnce().finally(() => this.#schedulePoll());
    }, this.#options.pollIntervalMs);
    this.#poll.unref();
  }

  /** Every watched campaign's changes, conditionally: a quiet campaign's 304 costs nothing. */
  async #pollOnce(): Promise<void> {
    const watched = this.#options.sync.campaigns;
    // With --all, the poll also looks for campaigns added to the key's scope.
    if (watched.length === 0) this.#describeDue = true;
    const ids = watched.length > 0 ? watched : await this.#deps.mirror.campaignIds();
    for (const id of ids) this.#pending.add(id);
    this.#schedule();
  }
}
