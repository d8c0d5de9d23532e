import { retentionOf } from '../../config.ts';
import { toIso } from '../../instant.ts';
import {
  deleteCampaign,
  eraseRespondents,
  findRespondentsByValue,
  releaseErased,
  respondentsOfCampaign,
} from '../../removals/erasure.service.ts';
import { runRetention } from '../../removals/retention.ts';
import { type Command, listOption, onePositional, required, withStore } from '../command.ts';
import { counted } from '../plural.ts';
import { scrubNote } from '../scrub-note.ts';
import { UsageError } from '../usage-error.ts';

/** Erasure and storage limitation: the operator's side of personal data (UU PDP). */
export const REMOVAL_COMMANDS: Record<string, Command> = {
  'respondents find': {
    summary:
      'Lists the respondents, in every campaign, with an answer equal to a value (e-mail addresses and phone numbers in their normal form).',
    example: 'respondents find --value sari@example.com',
    usage: 'respondents find --value TEXT',
    options: { value: { type: 'string' } },
    async run(context) {
      const found = await withStore(context, (store) =>
        findRespondentsByValue(store, required(context, 'value')),
      );
      const respondents = found.map((row) => ({ ...row, submittedAt: toIso(row.submittedAt) }));
      return {
        json: { respondents },
        text:
          respondents
            .map((row) => `${row.campaignId}  ${row.id}  submitted ${row.submittedAt}`)
            .join('\n') || 'no respondent has that value',
      };
    },
  },
  'respondents erase': {
    summary:
      'Erases respondents, each with a tombstone so partners’ mirrors drop them: by id in one campaign, or every one with an answer equal to a value (--yes to erase, else it only lists them).',
    example: 'respondents erase --campaign pernikahan-rina-bayu --id pernikahan-00400',
    usage:
      'respondents erase --campaign ID --id RID [--id RID …] | respondents erase --value TEXT [--yes]',
    options: {
      campaign: { type: 'string' },
      id: { type: 'string', multiple: true },
      value: { type: 'string' },
      yes: { type: 'boolean' },
    },
    async run(context) {
      const ids = listOption(context, 'id');
      const value = context.values.value;
      if (typeof value === 'string' && (ids.length > 0 || context.values.campaign !== undefined)) {
        throw new UsageError('give either --value, or --campaign with --id, not both');
      }
      return withStore(context, async (store) => {
        if (typeof value === 'string') {
          const found = await findRespondentsByValue(store, value);
          const listed = found.map((row) => `${row.campaignId}  ${row.id}`).join('\n');
          if (found.length === 0) {
            return { json: { erased: [] }, text: 'no respondent has that value; nothing erased' };
          }
          if (context.values.yes !== true) {
            return {
              json: { wouldErase: found.map(({ campaignId, id }) => ({ campaignId, id })) },
              text: `${listed}\nnothing erased yet: add --yes to erase ${counted(found.length, 'respondent')}`,
            };
          }
          const erasure = await eraseRespondents(store, context.clock, found, 'value');
          return {
            json: erasure,
            text: `${listed}\nerased ${counted(erasure.erased.length, 'respondent')}${scrubNote(erasure.scrub)}`,
          };
        }
        if (ids.length === 0) {
          throw new UsageError('give --campaign and at least one --id, or --value');
        }
        const named = await respondentsOfCampaign(store, required(context, 'campaign'), ids);
        const erasure = await eraseRespondents(store, context.clock, named, 'ids');
        return {
          json: erasure,
          text: `erased ${counted(erasure.erased.length, 'respondent')}${scrubNote(erasure.scrub)}`,
        };
      });
    },
  },
  'respondents release': {
    summary:
      'Lifts an erasure’s hold: the platform’s next version of each respondent is applied again (an erased respondent stays erased against what the platform sends until then, or until it sends their deletion).',
    example: 'respondents release --id pernikahan-00400',
    usage: 'respondents release --id RID [--id RID …]',
    options: { id: { type: 'string', multiple: true } },
    async run(context) {
      const ids = listOption(context, 'id');
      if (ids.length === 0) throw new UsageError('give at least one --id');
      const released = await withStore(context, (store) =>
        releaseErased(store, context.clock, ids),
      );
      return {
        json: { released },
        text:
          released === 0
            ? 'none of them was held: nothing to release'
            : `released ${counted(released, 'respondent')}: the platform's next version of each is applied`,
      };
    },
  },
  'campaigns delete': {
    summary:
      'Deletes a campaign and every respondent of it, each with a tombstone so partners’ mirrors drop them.',
    example: 'campaigns delete reuni-sma3-2006',
    usage: 'campaigns delete CAMPAIGN_ID',
    options: {},
    async run(context) {
      const campaignId = onePositional(context, 'CAMPAIGN_ID');
      const result = await withStore(context, (store) =>
        deleteCampaign(store, context.clock, campaignId),
      );
      return {
        json: result,
        text: `deleted campaign ${campaignId} and ${counted(result.respondentsErased, 'respondent')}${scrubNote(result.scrub)}`,
      };
    },
  },
  compact: {
    summary:
      'Leaves no byte of removed respondents in the database files: on PostgreSQL it rewrites the tables that held answers (VACUUM FULL: reads of each wait while it is rewritten); SQLite does this after every removal by itself.',
    example: 'compact',
    usage: 'compact',
    options: {},
    async run(context) {
      const result = await withStore(context, (store) => store.compact());
      const lines = [
        `rewrote ${result.rewritten.join(', ')}`,
        ...result.skipped.map((skip) => `skipped ${skip.table}: ${skip.why}`),
      ];
      return { json: result, text: lines.join('\n') + scrubNote(result.scrub) };
    },
  },
  'retention run': {
    summary:
      'Deletes the respondents of campaigns whose event is RETENTION_DAYS_AFTER_EVENT days past, tombstones older than REMOVALS_RETENTION_DAYS and lines of the disclosure record older than DISCLOSURES_RETENTION_DAYS; lists them first unless --yes.',
    example: 'retention run --yes',
    usage: 'retention run [--yes]',
    options: { yes: { type: 'boolean' } },
    async run(context) {
      const apply = context.values.yes === true;
      const settings = retentionOf(context.config);
      const result = await withStore(context, (store) =>
        runRetention(store, context.clock, settings, apply),
      );
      const lines = result.campaigns.map(
        (campaign) =>
          `${campaign.campaignId}  event ${toIso(campaign.eventDate)}  ${counted(campaign.respondents, 'respondent')}`,
      );
      const off =
        settings.daysAfterEvent === undefined
          ? 'RETENTION_DAYS_AFTER_EVENT is not set: no campaign expires'
          : undefined;
      const ending = apply
        ? `deleted the respondents of ${counted(result.campaigns.length, 'campaign')}; forgot ${counted(result.tombstonesPurged, 'tombstone')} older than ${settings.removalsDays} days and ${counted(result.disclosuresPurged, 'line')} of the disclosure record older than ${settings.disclosuresDays} days`
        : `nothing deleted yet: add --yes to delete the respondents of ${counted(result.campaigns.length, 'campaign')}, tombstones older than ${settings.removalsDays} days and lines of the disclosure record older than ${settings.disclosuresDays} days`;
      return {
        json: { applied: apply, ...result },
        text: [off, ...lines, ending].filter(Boolean).join('\n') + scrubNote(result.scrub),
      };
    },
  },
};
