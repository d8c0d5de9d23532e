import type { Kysely } from 'kysely';
import type { Clock } from '../clock.ts';
import type { Engine, Store } from '../db/connect.ts';
import type { Database } from '../db/schema.ts';
import { ChangeSet } from '../journal/change-set.ts';
import { endChange } from '../journal/end-change.ts';
import { findHeld, releaseHolds } from '../removals/erasure-holds.repository.ts';
import { removeCampaign, removeRespondents } from '../removals/removals.repository.ts';
import {
  BATCH_ROWS,
  claimVersions,
  createNamedIds,
  dropNamedIds,
  findFieldKeys,
  findLiveCampaignIds,
  nameIds,
  type RespondentWriter,
  replaceCampaignFields,
  respondentWriter,
  upsertCampaign,
} from './import.repository.ts';
import { Problems } from './import-problems.ts';
import {
  type CampaignEntry,
  checkCampaign,
  checkRespondent,
  type Deletion,
  type DroppedValues,
  type RespondentEntry,
} from './import-records.ts';
import { documentItems, type ImportItem } from './import-sources.ts';
import type { ImportCounts, ImportOptions } from './import-terms.ts';

export type { ImportCounts, ImportOptions } from './import-terms.ts';

/** Records a report names at most, by place and id; the rest are counted. */
const KEPT_ERASED_SHOWN = 100;

type RespondentUpsert = Extract<RespondentEntry, { kind: 'upsert' }>;

/** How many respondents of one campaign the import names, and where the first few are. */
interface References {
  places: string[];
  count: number;
}
const PLACES_KEPT = 20;

/** `run` at the first call only (nothing when absent); every later call awaits that one. */
function once(run: (() => Promise<void>) | undefined): () => Promise<void> {
  let started: Promise<void> | undefined;
  return () => {
    started ??= run ? run() : Promise.resolve();
    return started;
  };
}

/**
 * One import in its transaction. Records are written as they come, in batches, so memory stays
 * flat; any problem stops the writing, the reading goes on to find every other problem, and the
 * transaction is rolled back. A respondent whose campaign is not yet known (it comes later in the
 * file) waits in memory until its campaign comes.
 */
class ImportRun {
  readonly problems: Problems;
  readonly dropped: DroppedValues = { ipAddress: 0, token: 0, guestToken: 0 };
  /** The file's campaigns by id: where each is and whether it is upserted or deleted. */
  private readonly campaigns = new Map<string, Pick<CampaignEntry, 'kind' | 'where'>>();
  private readonly liveInStore = new Map<string, boolean>();
  private readonly references = new Map<string, References>();
  private readonly waiting = new Map<string, RespondentUpsert[]>();
  private upserts: RespondentUpsert[] = [];
  private deletions: Deletion[] = [];
  private readonly counts = {
    campaignsDeleted: 0,
    respondentsUpserted: 0,
    respondentsDeleted: 0,
    stale: 0,
  };
  private readonly keptErased: ImportCounts['keptErased'] = { count: 0, records: [] };
  private readonly unknownAnswers: ImportCounts['unknownAnswers'] = { count: 0, records: [] };
  /** Each campaign's field keys as this import has seen them written. */
  private readonly fieldKeys = new Map<string, Set<string>>();
  /** What the commit's notifications report. */
  private readonly changes = new ChangeSet();

  private constructor(
    private readonly db: Kysely<Database>,
    private readonly engine: Engine,
    private readonly clock: Clock,
    private readonly now: number,
    private readonly writer: RespondentWriter,
    /** See ImportOptions.beforeSharedWrites; the writer awaits it too. */
    private readonly beforeSharedWrites: () => Promise<void>,
    private readonly options: ImportOptions,
  ) {
    this.problems = new Problems(options.problemsShown);
  }

  /** An import begun in the transaction `db`. */
  static async begin(
    db: Kysely<Database>,
    engine: Engine,
    clock: Clock,
    now: number,
    options: ImportOptions,
  ): Promise<ImportRun> {
    await createNamedIds(db, engine);
    const shared = once(options.beforeSharedWrites);
    const writer = await respondentWriter(db, engine, shared);
    return new ImportRun(db, engine, clock, now, writer, shared, options);
  }

  async take(item: ImportItem): Promise<void> {
    if (item.kind === 'problem') return this.problems.add(item.where, item.what);
    if (item.kind === 'campaign') {
      const entry = this.checked(item, () => checkCampaign(this.problems, item.place, item.record));
      if (entry) await this.takeCampaign(entry);
      return;
    }
    const entry = this.checked(item, () =>
      checkRespondent(this.problems, item.place, item.record, this.dropped),
    );
    if (entry?.kind === 'upsert') {
      this.reference(entry);
      this.upserts.push(entry);
    } else if (entry) {
      this.deletions.push(entry);
    }
    if (this.upserts.length + this.deletions.length >= BATCH_ROWS) await this.flush();
  }

  /**
   * A record checked: a JSON Lines record the published schema refuses is refused, in the
   * checks' words when they have any for it (see lineProblem).
   */
  private checked<Entry extends { where: string } | undefined>(
    item: { place: string; unlike?: string },
    check: () => Entry,
  ): Entry {
    const before = this.problems.count;
    const entry = check();
    if (item.unlike && this.problems.count === before) {
      this.problems.add(entry?.where ?? item.place, item.unlike);
    }
    return entry;
  }

  private async takeCampaign(entry: CampaignEntry): Promise<void> {
    const first = this.campaigns.get(entry.id);
    if (first !== undefined && entry.id !== '') {
      this.problems.add(entry.where, `id also used by ${first.where}`);
      return;
    }
    this.campaigns.set(entry.id, { kind: entry.kind, where: entry.where });
    if (entry.kind === 'delete') {
      if (!this.problems.any) {
        await this.beforeSharedWrites();
        // A deleted campaign's rows are nobody's to read: they go, each with its tombstone.
        const removed = await removeCampaign(this.db, entry.id, this.now);
        if (removed.deleted) {
          this.counts.campaignsDeleted += 1;
          this.changes.campaignDeleted(entry.id);
        }
        this.counts.respondentsDeleted += removed.respondents;
      }
      return;
    }
    if (this.problems.any) return;
    await this.beforeSharedWrites();
    const upsert = await upsertCampaign(this.db, entry, this.now);
    const fieldsChanged = entry.fields
      ? await replaceCampaignFields(this.db, entry.id, entry.fields)
      : false;
    this.fieldKeys.delete(entry.id);
    if (upsert.kind === 'restored') this.changes.campaignRestored(entry.id);
    if (upsert.kind === 'live') {
      this.changes.campaignUpdated(entry.id, [
        ...upsert.changed,
        ...(fieldsChanged ? (['fields'] as const) : []),
      ]);
    }
    // Respondents that waited for this campaign were named when they came: written now.
    const held = this.waiting.get(entry.id) ?? [];
    this.waiting.delete(entry.id);
    for (let start = 0; start < held.length; start += BATCH_ROWS) {
      await this.write(held.slice(start, start + BATCH_ROWS));
    }
  }

  private reference(entry: RespondentUpsert): void {
    // A missing campaignId is already reported with the record's other problems.
    if (entry.campaignId === '') return;
    const references = this.references.get(entry.campaignId) ?? { places: [], count: 0 };
    if (references.places.length < PLACES_KEPT) references.places.push(entry.where);
    references.count += 1;
    this.references.set(entry.campaignId, references);
  }

  /** Names the batch's ids (an id named twice is a problem), then writes it unless rejected. */
  private async flush(): Promise<void> {
    const upserts = this.upserts;
    const deletions = this.deletions;
    this.upserts = [];
    this.deletions = [];
    const named = [...upserts, ...deletions].filter((entry) => entry.id !== '');
    for (const repeated of await nameIds(this.db, named)) {
      this.problems.add(repeated.where, `id also used by ${repeated.firstNamedAt}`);
    }
    if (this.problems.any) {
      this.waiting.clear();
      return;
    }
    const fresh = await this.fresh([...upserts, ...deletions]);
    await this.write(upserts.filter(fresh));
    const deleted = deletions.filter(fresh).map((entry) => entry.id);
    if (deleted.length > 0) await this.beforeSharedWrites();
    this.counts.respondentsDeleted += await removeRespondents(this.db, deleted);
    // The platform deleted them too: an erasure's hold has done its work.
    await releaseHolds(this.db, deleted);
  }

  /**
   * Which records are to be applied: those without a version (the later record wins), and those
   * whose version is newer than the one held, which is recorded as they are claimed. The rest
   * are stale: counted, and skipped.
   */
  private async fresh(
    entries: ReadonlyArray<RespondentEntry>,
  ): Promise<(entry: RespondentEntry) => boolean> {
    const versioned = entries.flatMap((entry) =>
      entry.version === undefined ? [] : [{ id: entry.id, version: entry.version }],
    );
    if (versioned.length === 0) return () => true;
    const newer = await claimVersions(this.db, versioned, this.now);
    this.counts.stale += versioned.length - newer.size;
    return (entry) => entry.version === undefined || newer.has(entry.id);
  }

  /** Writes the respondents whose campaign is known; the others wait for theirs. */
  private async write(upserts: RespondentUpsert[]): Promise<void> {
    await this.lookUpCampaigns(upserts.map((entry) => entry.campaignId));
    // An erased person stays erased, whatever the platform sends, until it deletes them too.
    const erased = await findHeld(
      this.db,
      upserts.map((entry) => entry.id),
    );
    const ready: RespondentUpsert[] = [];
    for (const entry of upserts) {
      if (erased.has(entry.id)) this.keepErased(entry);
      else if (this.isKnown(entry.campaignId)) ready.push(entry);
      else this.hold(entry);
    }
    await this.noteUnknownAnswers(ready);
    const rows = ready.map((entry) => ({
      id: entry.id,
      campaign_id: entry.campaignId,
      submitted_at: entry.submittedAt,
      attendance_status: entry.attendanceStatus,
      answers: entry.answers,
    }));
    await this.writer.write(rows);
    for (const row of rows) this.changes.rowWritten(row.campaign_id, row.submitted_at);
    this.counts.respondentsUpserted += ready.length;
  }

  /** Records which answers name a question their campaign does not have. */
  private async noteUnknownAnswers(ready: readonly RespondentUpsert[]): Promise<void> {
    const unknown = [...new Set(ready.map((entry) => entry.campaignId))].filter(
      (id) => !this.fieldKeys.has(id),
    );
    if (unknown.length > 0) {
      for (const [id, keys] of await findFieldKeys(this.db, unknown)) this.fieldKeys.set(id, keys);
    }
    for (const entry of ready) {
      if (entry.answers === '{}') continue;
      const known = this.fieldKeys.get(entry.campaignId);
      const fields = Object.keys(JSON.parse(entry.answers)).filter((key) => !known?.has(key));
      if (fields.length === 0) continue;
      this.unknownAnswers.count += 1;
      if (this.unknownAnswers.records.length < KEPT_ERASED_SHOWN) {
        this.unknownAnswers.records.push({ where: entry.where, id: entry.id, fields });
      }
    }
  }

  private keepErased(entry: RespondentUpsert): void {
    this.keptErased.count += 1;
    if (this.keptErased.records.length < KEPT_ERASED_SHOWN) {
      this.keptErased.records.push({ where: entry.where, id: entry.id });
    }
  }

  private hold(entry: RespondentUpsert): void {
    const held = this.waiting.get(entry.campaignId);
    if (held) held.push(entry);
    else this.waiting.set(entry.campaignId, [entry]);
  }

  private inFile(campaignId: string, kind: CampaignEntry['kind']): boolean {
    return this.campaigns.get(campaignId)?.kind === kind;
  }

  private isKnown(campaignId: string): boolean {
    return this.inFile(campaignId, 'upsert') || this.liveInStore.get(campaignId) === true;
  }

  /** Asks the store once about each campaign not asked about before. */
  private async lookUpCampaigns(ids: string[]): Promise<void> {
    const unasked = [...new Set(ids)].filter(
      (id) => id !== '' && !this.inFile(id, 'upsert') && !this.liveInStore.has(id),
    );
    if (unasked.length === 0) return;
    const live = await findLiveCampaignIds(this.db, unasked);
    for (const id of unasked) this.liveInStore.set(id, live.has(id));
  }

  /** After the last record: the respondents' campaigns are checked, then the import ends. */
  async finish(): Promise<ImportCounts> {
    await this.flush();
    await this.lookUpCampaigns([...this.references.keys()]);
    for (const [campaignId, references] of this.references) {
      if (this.isKnown(campaignId) && !this.inFile(campaignId, 'delete')) continue;
      for (const place of references.places) {
        this.problems.add(place, `campaign ${campaignId} does not exist`);
      }
      this.problems.addUnshown(references.count - references.places.length);
    }
    this.problems.throwIfAny();
    await this.writer.finish();
    await dropNamedIds(this.db, this.engine);
    const counts: ImportCounts = {
      campaigns: {
        upserted: [...this.campaigns.values()].filter((campaign) => campaign.kind === 'upsert')
          .length,
        deleted: this.counts.campaignsDeleted,
      },
      respondents: {
        upserted: this.counts.respondentsUpserted,
        deleted: this.counts.respondentsDeleted,
      },
      stale: this.counts.stale,
      dropped: this.dropped,
      keptErased: this.keptErased,
      unknownAnswers: this.unknownAnswers,
    };
    await endChange(this.db, {
      engine: this.engine,
      clock: this.clock,
      changes: this.changes,
      audit: {
        actor: this.options.actor ?? 'operator',
        action: this.options.action ?? 'import',
        details: counts,
      },
    });
    return counts;
  }
}

/**
 * Imports records read from a file (handed on in batches, see import-sources.ts), all or nothing, in one transaction: campaigns and respondents
 * are written as they come, and when any record is bad (or a respondent's campaign exists neither
 * in the file nor in the store) every problem is reported together and nothing is written.
 */
export async function importRecords(
  store: Store,
  clock: Clock,
  batches: AsyncIterable<readonly ImportItem[]> | Iterable<readonly ImportItem[]>,
): Promise<ImportCounts> {
  return store.db
    .transaction()
    .execute((trx) => importWithin(trx, store.engine, clock, batches, {}));
}

/**
 * The same import, in a transaction the caller holds (the ingest API writes its batch's answer
 * in it too); a bad record throws before the caller commits anything.
 */
export async function importWithin(
  trx: Kysely<Database>,
  engine: Engine,
  clock: Clock,
  batches: AsyncIterable<readonly ImportItem[]> | Iterable<readonly ImportItem[]>,
  options: ImportOptions,
): Promise<ImportCounts> {
  const run = await ImportRun.begin(trx, engine, clock, clock.now(), options);
  for await (const batch of batches) {
    for (const item of batch) await run.take(item);
  }
  return run.finish();
}

/** Imports a document already in memory: `{ "campaigns": [...], "respondents": [...] }`. */
export function importDocument(
  store: Store,
  clock: Clock,
  document: unknown,
): Promise<ImportCounts> {
  return importRecords(store, clock, [[...documentItems(document)]]);
}
