import type { Store } from '../../db/store.ts';
import { reportOnKey } from '../../disclosures/key-exposure.ts';
import { findAnswersOf, findNamedCampaigns } from '../../disclosures/report.repository.ts';
import {
  exposedInOrder,
  respondentDocument,
  respondentJson,
  writeExposureDocument,
  writeExposureJson,
} from '../../disclosures/report-documents.ts';
import type { ReportLanguage } from '../../disclosures/report-words.ts';
import { reportOnRespondent } from '../../disclosures/respondent-report.ts';
import { parseInstant } from '../../instant.ts';
import { type Command, type Context, withStore } from '../command.ts';
import { UsageError } from '../usage-error.ts';

function languageOf(context: Context): ReportLanguage {
  const lang = context.values.lang ?? 'id';
  if (lang !== 'id' && lang !== 'en') {
    throw new UsageError(`--lang takes id (Bahasa Indonesia) or en (English), got '${lang}'`);
  }
  return lang;
}

function instantOption(context: Context, name: 'from' | 'to'): number | undefined {
  const raw = context.values[name];
  if (raw === undefined) return undefined;
  const at = typeof raw === 'string' ? parseInstant(raw) : undefined;
  if (at === undefined) {
    throw new UsageError(
      `--${name} takes an ISO-8601 date-time such as 2026-11-28T00:00:00+07:00, got '${String(raw)}'`,
    );
  }
  return at;
}

/** How to reach each attendee from the answers held now: their e-mail and phone answers. */
async function contactsOf(
  store: Store,
  respondentIds: readonly string[],
  campaigns: Awaited<ReturnType<typeof findNamedCampaigns>>,
  campaignOf: (id: string) => string | undefined,
): Promise<Map<string, string>> {
  const answers = await findAnswersOf(store, respondentIds);
  const contacts = new Map<string, string>();
  for (const [id, held] of answers) {
    const questions = campaigns.get(campaignOf(id) ?? '')?.questions;
    const reach = Object.entries(held)
      .filter(([key]) => ['EMAIL', 'PHONE'].includes(questions?.get(key)?.type ?? ''))
      .map(([, value]) => String(value));
    if (reach.length > 0) contacts.set(id, reach.join(', '));
  }
  return contacts;
}

export const DISCLOSURE_COMMANDS: Record<string, Command> = {
  disclosures: {
    summary:
      "Who received whose data: with --respondent, an attendee's data and every recipient, door, field and time, as a document to hand them (UU PDP Pasal 32); with --key, every respondent a key's chain received, with draft notices (Pasal 46).",
    example: 'disclosures --respondent pernikahan-00400 --lang en',
    usage:
      'disclosures (--respondent ID | --key KEY_ID [--from T] [--to T]) [--lang id|en] [--json]',
    options: {
      respondent: { type: 'string' },
      key: { type: 'string' },
      from: { type: 'string' },
      to: { type: 'string' },
      lang: { type: 'string' },
    },
    async run(context) {
      const { respondent, key } = context.values;
      if ((typeof respondent === 'string') === (typeof key === 'string')) {
        throw new UsageError('give --respondent ID or --key KEY_ID (one of them)');
      }
      const language = languageOf(context);
      const now = context.clock.now();
      if (typeof respondent === 'string') {
        if (context.values.from !== undefined || context.values.to !== undefined) {
          throw new UsageError(
            '--from and --to go with --key: a respondent report covers all time',
          );
        }
        const report = await withStore(context, (store) => reportOnRespondent(store, respondent));
        return { json: respondentJson(report), text: respondentDocument(report, language, now) };
      }
      const from = instantOption(context, 'from') ?? 0;
      const to = instantOption(context, 'to') ?? now + 1;
      if (to <= from) throw new UsageError('--to must be after --from');
      const asJson = context.values.json === true;
      // Streamed: a key that received a hundred thousand respondents prints them one by one.
      const write = (text: string) => context.io.stdout(text);
      await withStore(context, async (store) => {
        const exposure = await reportOnKey(store, key as string, { from, to });
        const ordered = exposedInOrder(exposure);
        if (asJson) {
          writeExposureJson(exposure, ordered, write);
          return;
        }
        const campaigns = await findNamedCampaigns(store, [
          ...new Set(ordered.map((each) => each.campaignId)),
        ]);
        const contacts = await contactsOf(
          store,
          ordered.map((each) => each.id),
          campaigns,
          (id) => exposure.respondents.get(id)?.campaignId,
        );
        writeExposureDocument(exposure, ordered, { language, now, campaigns, contacts }, write);
      });
      return undefined;
    },
  },
};
