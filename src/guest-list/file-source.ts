import { once } from 'node:events';
import type { Writable } from 'node:stream';
import type { WholeCampaign } from '../campaigns/campaigns.service.ts';
import type { ProjectedRespondent } from '../campaigns/pages/respondent-pages.ts';

/** What a guest list is written from: the campaign's title, its fields and its rows. */
export interface GuestListSource {
  campaign: Pick<WholeCampaign['campaign'], 'title'>;
  fields: ReadonlyArray<Pick<WholeCampaign['fields'][number], 'key' | 'label' | 'type'>>;
  respondents(): AsyncGenerator<ProjectedRespondent>;
}

/** The reader went away: the file is not written on for nobody. */
export class ReaderGone extends Error {}

/**
 * Waits while `out` holds more than it wants, so a slow reader slows the file and memory stays
 * flat; stops the writing once the reader has gone.
 */
export async function readerReady(out: Writable): Promise<void> {
  if (out.writableNeedDrain && !out.destroyed) {
    await Promise.race([once(out, 'drain'), once(out, 'close')]);
  }
  if (out.destroyed) throw new ReaderGone('the reader went away before the file was written');
}
