import { readFileSync } from 'node:fs';
import { importDocument } from '../../import/import.service.ts';
import { checkImportDocument } from '../../import/import-document.ts';
import { type Command, onePositional, withStore } from '../command.ts';
import { UsageError } from '../usage-error.ts';

function readImportSource(source: string): unknown {
  let text: string;
  try {
    text = source === '-' ? readFileSync(0, 'utf8') : readFileSync(source, 'utf8');
  } catch (error) {
    throw new UsageError(`cannot read ${source}: ${(error as Error).message}`);
  }
  try {
    return JSON.parse(text);
  } catch (error) {
    throw new UsageError(
      `${source === '-' ? 'standard input' : source} is not valid JSON: ${(error as Error).message}`,
    );
  }
}

export const IMPORT_COMMANDS: Record<string, Command> = {
  import: {
    summary: 'Imports campaigns, respondents and deletions from a JSON document, all or nothing.',
    example: 'import campaigns.json',
    usage: 'import FILE|-',
    options: {},
    async run(context) {
      const source = onePositional(context, 'FILE (or - for standard input)');
      // The document's own problems and those against the database are reported together.
      const { document, problems } = checkImportDocument(readImportSource(source));
      const counts = await withStore(context, (store) =>
        importDocument(store, context.clock, document, problems),
      );
      const { ipAddress, token, guestToken } = counts.dropped;
      const dropped =
        ipAddress + token + guestToken === 0
          ? ''
          : `\ndropped ${ipAddress} ipAddress, ${token} token and ${guestToken} guestToken values: they are never served, so they are not kept`;
      return {
        json: counts,
        text:
          `imported ${counts.campaigns.upserted} campaigns (${counts.campaigns.deleted} deleted) and ` +
          `${counts.respondents.upserted} respondents (${counts.respondents.deleted} deleted)${dropped}`,
      };
    },
  },
};
