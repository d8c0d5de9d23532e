import { closeSync, createReadStream, fstatSync, openSync } from 'node:fs';
import type { Readable } from 'node:stream';
import { boundHeapGrowth } from '../../heap-growth.ts';
import { type ImportCounts, importRecords } from '../../import/import.service.ts';
import {
  type ImportItem,
  jsonDocumentItems,
  jsonLinesItems,
  looksLikeJsonLines,
} from '../../import/import-sources.ts';
import { type Command, type Context, onePositional, withStore } from '../command.ts';
import { withImportProgress } from '../import-progress.ts';
import { counted } from '../plural.ts';
import { scrubNote } from '../scrub-note.ts';
import { UsageError } from '../usage-error.ts';

type Format = 'json' | 'jsonl';
const READ_CHUNK_BYTES = 1 << 20;

/** The file (or standard input) as a stream, with its size when it has one. */
function openSource(context: Context, source: string): { stream: Readable; size?: number } {
  if (source === '-') return { stream: context.io.stdin() };
  let fd: number;
  try {
    fd = openSync(source, 'r');
  } catch (error) {
    throw new UsageError(`cannot read ${source}: ${(error as Error).message}`);
  }
  const stats = fstatSync(fd);
  if (!stats.isFile()) {
    closeSync(fd);
    throw new UsageError(`cannot read ${source}: it is not a file`);
  }
  return {
    stream: createReadStream('', { fd, highWaterMark: READ_CHUNK_BYTES }),
    size: stats.size,
  };
}

function formatOption(context: Context, source: string): Format | undefined {
  const given = context.values.format;
  if (given === 'json' || given === 'jsonl') return given;
  if (given !== undefined) throw new UsageError(`--format takes json or jsonl, got '${given}'`);
  if (/\.(jsonl|ndjson)$/i.test(source)) return 'jsonl';
  if (/\.json$/i.test(source)) return 'json';
  return undefined;
}

/**
 * The bytes of the source, counted as they are read; the format is the one asked for, or the
 * file's extension's, or else what the first line looks like.
 */
async function* readItems(
  name: string,
  stream: Readable,
  format: Format | undefined,
  counter: { bytes: number },
): AsyncGenerator<ImportItem[]> {
  const chunks = stream[Symbol.asyncIterator]() as AsyncIterator<Buffer>;
  const first = await chunks.next();
  if (first.done) {
    yield [{ kind: 'problem', where: name, what: 'is empty' }];
    return;
  }
  async function* countedChunks(): AsyncGenerator<Buffer> {
    counter.bytes += first.value.length;
    yield first.value;
    for (let next = await chunks.next(); !next.done; next = await chunks.next()) {
      counter.bytes += next.value.length;
      yield next.value;
    }
  }
  const jsonLines = format === undefined ? looksLikeJsonLines(first.value) : format === 'jsonl';
  yield* jsonLines ? jsonLinesItems(countedChunks()) : jsonDocumentItems(name, countedChunks());
}

function describeCounts(counts: ImportCounts): string {
  const { campaigns, respondents } = counts;
  const { ipAddress, token, guestToken } = counts.dropped;
  const dropped =
    ipAddress + token + guestToken === 0
      ? ''
      : `\ndropped ${ipAddress.toLocaleString('en')} ipAddress, ${token.toLocaleString('en')} token and ${guestToken.toLocaleString('en')} guestToken values: they are never served, so they are not kept`;
  const stale =
    counts.stale === 0
      ? ''
      : `\nskipped ${counted(counts.stale, 'stale record')}: a newer version of each is already held`;
  const { keptErased } = counts;
  const erased =
    keptErased.count === 0
      ? ''
      : `\nkept ${counted(keptErased.count, 'erased respondent')} erased (${keptErased.records
          .slice(0, 5)
          .map((record) => record.id)
          .join(
            ', ',
          )}${keptErased.count > 5 ? ', …' : ''}): an operator erased them; hadir respondents release --id ID applies them again`;
  const { unknownAnswers } = counts;
  const unknown =
    unknownAnswers.count === 0
      ? ''
      : `\n${counted(unknownAnswers.count, 'record')} answer questions their campaign does not have (${unknownAnswers.records
          .slice(0, 3)
          .map((record) => `${record.where}: ${record.fields.join(', ')}`)
          .join(
            '; ',
          )}${unknownAnswers.count > 3 ? '; …' : ''}): kept, and served once the campaign has them`;
  return (
    `imported ${counted(campaigns.upserted, 'campaign')} (${campaigns.deleted} deleted) and ` +
    `${counted(respondents.upserted, 'respondent')} (${respondents.deleted.toLocaleString('en')} deleted)${stale}${erased}${unknown}${dropped}`
  );
}

export const IMPORT_COMMANDS: Record<string, Command> = {
  import: {
    summary:
      'Imports campaigns, respondents and deletions from a JSON document or JSON Lines, all or nothing.',
    example: 'import campaigns.json',
    usage: 'import FILE|- [--format json|jsonl]',
    options: { format: { type: 'string' } },
    async run(context) {
      const source = onePositional(context, 'FILE (or - for standard input)');
      // A file of any size goes through a small working set: V8 need not hold more.
      boundHeapGrowth();
      const format = formatOption(context, source);
      const name = source === '-' ? 'standard input' : source;
      const { stream, size } = openSource(context, source);
      const counter = { bytes: 0 };
      const progress = withImportProgress(readItems(name, stream, format, counter), {
        clock: context.clock,
        write: context.io.stderr,
        terminal: context.io.stderrIsTerminal === true,
        bytesRead: () => counter.bytes,
        totalBytes: size,
      });
      try {
        const { imported: counts, scrub } = await withStore(
          context,
          async (store) => {
            const imported = await importRecords(store, context.clock, progress.batches);
            // Removed rows leave no copy in the database's files (see Store.scrubRemovals).
            const removed = imported.respondents.deleted > 0 || imported.campaigns.deleted > 0;
            return { imported, scrub: removed ? await store.scrubRemovals() : undefined };
          },
          { ifMissing: 'create' },
        );
        return { json: counts, text: describeCounts(counts) + scrubNote(scrub) };
      } finally {
        progress.done();
        stream.destroy();
      }
    },
  },
};
