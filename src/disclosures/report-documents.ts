import { toIso } from '../instant.ts';
import { jakartaDateTime } from '../jakarta-time.ts';
import type { ExposedRespondent, KeyExposure } from './key-exposure.ts';
import type { NamedCampaign } from './report.repository.ts';
import { REPORT_WORDS, type ReportLanguage } from './report-words.ts';
import type { RespondentReport } from './respondent-report.ts';

/** A field as a person reads it: its question's label where the campaign still names it. */
function fieldName(campaign: NamedCampaign | undefined, key: string): string {
  return campaign?.questions.get(key)?.label ?? key;
}

function answerText(value: unknown): string {
  return Array.isArray(value) ? value.join(', ') : String(value);
}

/**
 * The report on one respondent as a document an operator hands to them: their data as held now
 * (or how they left), and each recipient by identity with what it received, by which door, when
 * and how often, and whether their removal reached it. Nothing of any other respondent.
 */
export function respondentDocument(
  report: RespondentReport,
  language: ReportLanguage,
  now: number,
): string {
  const words = REPORT_WORDS[language];
  const time = (at: number) => jakartaDateTime(language, at);
  const { campaign, held, departure } = report;
  const campaignText = campaign
    ? words.campaignNamed(campaign.title, campaign.id)
    : words.campaignUnknown;
  const lines = [
    words.respondentTitle,
    words.respondentBasis,
    words.madeAt(time(now)),
    '',
    words.subject(report.respondentId, campaignText),
    '',
    words.heldHeading,
  ];
  if (held) {
    lines.push(`   ${words.submittedAt}: ${time(held.submittedAt)}`);
    lines.push(
      `   ${words.attendanceLabel}: ${words.attendance[held.attendanceStatus] ?? held.attendanceStatus}`,
    );
    const answers = Object.entries(held.answers);
    for (const [key, value] of answers) {
      lines.push(`   ${fieldName(campaign, key)}: ${answerText(value)}`);
    }
    if (answers.length === 0) lines.push(`   ${words.noAnswers}`);
  } else if (departure) {
    lines.push(
      `   ${departure.kind === 'erased' ? words.erased(time(departure.at)) : words.removed(time(departure.at))}`,
    );
    lines.push(`   ${words.recordKept}`);
  } else {
    lines.push(`   ${words.notHeld}`, `   ${words.recordKept}`);
  }
  lines.push('', words.recipientsHeading);
  if (report.recipients.length === 0) lines.push(`   ${words.noRecipients}`);
  report.recipients.forEach((recipient, index) => {
    const who = recipient.organisation
      ? `${recipient.organisation} (${recipient.accountEmail})`
      : recipient.accountEmail;
    lines.push(`   ${words.recipient(index + 1, who, recipient.keyLabel, recipient.keyId)}`);
    for (const use of recipient.doors) {
      const fields = !use.carriedRow
        ? words.idOnly
        : use.fields.length === 0
          ? words.rowWithout
          : words.rowWith(use.fields.map((key) => fieldName(campaign, key)).join(', '));
      lines.push(
        `     ${words.doorLine(words.doors[use.door], fields, time(use.first), time(use.last), use.count)}`,
      );
    }
    const reach = recipient.removalReached;
    if (reach) {
      lines.push(
        `     ${reach.reached ? words.reached(words.doors[reach.reached.door], time(reach.reached.at)) : words.notReached}`,
      );
      for (const taken of reach.filesTaken) lines.push(`     ${words.filesTaken(time(taken))}`);
    }
  });
  if (report.recipients.length > 0) lines.push('', words.rowFacts);
  return `${lines.join('\n')}\n`;
}

/** The report on one respondent as JSON: ids, field keys and ISO times. */
export function respondentJson(report: RespondentReport): unknown {
  const { held, departure } = report;
  return {
    respondent: {
      id: report.respondentId,
      ...(held || departure ? { campaignId: held?.campaignId ?? departure?.campaignId } : {}),
      ...(departure?.kind === 'erased' ? { erasedAt: toIso(departure.at) } : {}),
      ...(departure?.kind === 'removed' ? { removedAt: toIso(departure.at) } : {}),
      ...(held
        ? {
            submittedAt: toIso(held.submittedAt),
            attendanceStatus: held.attendanceStatus,
            fields: held.answers,
          }
        : {}),
    },
    recipients: report.recipients.map((recipient) => ({
      accountEmail: recipient.accountEmail,
      organisation: recipient.organisation,
      keyId: recipient.keyId,
      keyLabel: recipient.keyLabel,
      doors: recipient.doors.map((use) => ({
        door: use.door,
        fields: use.fields,
        first: toIso(use.first),
        last: toIso(use.last),
        count: use.count,
      })),
      ...(recipient.removalReached
        ? {
            removalReached: {
              reached: recipient.removalReached.reached !== undefined,
              ...(recipient.removalReached.reached
                ? {
                    door: recipient.removalReached.reached.door,
                    at: toIso(recipient.removalReached.reached.at),
                  }
                : {}),
              filesTaken: recipient.removalReached.filesTaken.map(toIso),
            },
          }
        : {}),
    })),
  };
}

/** A respondent of a key's exposure as JSON (one line of the streamed array). */
export function exposedJson(exposed: ExposedRespondent): unknown {
  return {
    id: exposed.id,
    campaignId: exposed.campaignId,
    fields: exposed.fields,
    first: toIso(exposed.first),
    last: toIso(exposed.last),
    doors: [...exposed.doors].map(([door, count]) => ({ door, count })),
  };
}

/** The exposed respondents in the order a report lists them: by campaign, then id. */
export function exposedInOrder(exposure: KeyExposure): ExposedRespondent[] {
  return [...exposure.respondents.values()].sort((a, b) =>
    a.campaignId === b.campaignId
      ? a.id < b.id
        ? -1
        : a.id > b.id
          ? 1
          : 0
      : a.campaignId < b.campaignId
        ? -1
        : 1,
  );
}

/** Writes a key's exposure as JSON to `write`, a respondent at a time. */
export function writeExposureJson(
  exposure: KeyExposure,
  ordered: readonly ExposedRespondent[],
  write: (text: string) => void,
): void {
  const { key, window } = exposure;
  write(
    `{"key":${JSON.stringify({ keyId: key.id, keyLabel: key.label, accountEmail: key.accountEmail, organisation: key.organisation, lineageId: key.lineageId })},"window":${JSON.stringify({ from: toIso(window.from), to: toIso(window.to) })},"respondents":[`,
  );
  ordered.forEach((exposed, index) => {
    write(`${index === 0 ? '\n' : ',\n'}${JSON.stringify(exposedJson(exposed))}`);
  });
  write('\n]}\n');
}

/**
 * Writes a key's exposure as a document to `write`, in both languages where it speaks to the
 * attendees: what the chain received (per campaign, per field, per respondent), then a draft
 * notice for each group of attendees who lost the same data, with the attendees it goes to.
 */
export function writeExposureDocument(
  exposure: KeyExposure,
  ordered: readonly ExposedRespondent[],
  context: {
    language: ReportLanguage;
    now: number;
    campaigns: Map<string, NamedCampaign>;
    /** How to reach each attendee, from the answers held now (e-mail, phone). */
    contacts: Map<string, string>;
  },
  write: (text: string) => void,
): void {
  const { language, campaigns } = context;
  const words = REPORT_WORDS[language];
  const time = (at: number) => jakartaDateTime(language, at);
  const { key, chain, window } = exposure;
  const who = key.organisation ? `${key.organisation} (${key.accountEmail})` : key.accountEmail;
  const revoked = chain
    .map((each) => each.revokedAt)
    .filter((at): at is number => at !== null)
    .sort((a, b) => b - a)[0];
  const campaignText = (id: string) => {
    const named = campaigns.get(id);
    return named ? words.campaignNamed(named.title, id) : id;
  };
  const head = [
    words.keyTitle,
    words.keyBasis,
    words.madeAt(time(context.now)),
    '',
    words.keyLine(key.label, key.id, who),
    words.chainLine(chain.map((each) => `${each.id} "${each.label}"`).join(', ')),
    words.windowLine(
      window.from <= 0 ? words.recordStart : time(window.from),
      time(Math.min(window.to, context.now)),
    ),
    revoked !== undefined ? words.revokedLine(time(revoked)) : words.notRevoked(key.id),
    words.totals(
      exposure.respondents.size,
      new Set(ordered.map((each) => each.campaignId)).size,
      exposure.lines,
    ),
    '',
  ];
  write(`${head.join('\n')}\n`);
  // Per campaign: how many respondents, and how many of them went with each field.
  const perCampaign = new Map<string, { respondents: number; fields: Map<string, number> }>();
  for (const exposed of ordered) {
    let tally = perCampaign.get(exposed.campaignId);
    if (!tally) {
      tally = { respondents: 0, fields: new Map() };
      perCampaign.set(exposed.campaignId, tally);
    }
    tally.respondents++;
    for (const field of exposed.fields) tally.fields.set(field, (tally.fields.get(field) ?? 0) + 1);
  }
  for (const [campaignId, tally] of perCampaign) {
    const lines = [words.campaignTotals(campaignText(campaignId), tally.respondents)];
    for (const [field, respondents] of tally.fields) {
      lines.push(words.fieldCount(fieldName(campaigns.get(campaignId), field), respondents));
    }
    write(`${lines.join('\n')}\n`);
  }
  write(`\n${words.respondentsHeading}\n`);
  for (const exposed of ordered) {
    write(
      `${[
        exposed.id,
        exposed.campaignId,
        exposed.fields.join(',') || '-',
        toIso(exposed.first),
        toIso(exposed.last),
        [...exposed.doors].map(([door, count]) => `${door}×${count}`).join(','),
      ].join('  ')}\n`,
    );
  }
  // One notice per campaign and set of fields, in both languages, then who it goes to.
  const groups = new Map<string, ExposedRespondent[]>();
  for (const exposed of ordered) {
    const group = `${exposed.campaignId}\u0000${exposed.fields.join(',')}`;
    const members = groups.get(group);
    if (members) members.push(exposed);
    else groups.set(group, [exposed]);
  }
  write(`\n${REPORT_WORDS.id.noticesHeading} / ${REPORT_WORDS.en.noticesHeading}\n`);
  let number = 0;
  for (const members of groups.values()) {
    const [first] = members;
    if (!first) continue;
    number++;
    const campaign = campaigns.get(first.campaignId);
    write(`\n#${number}\n`);
    for (const noticeLanguage of ['id', 'en'] as const) {
      const own = REPORT_WORDS[noticeLanguage];
      const at = (ms: number) => jakartaDateTime(noticeLanguage, ms);
      const fields = first.fields.map((field) => fieldName(campaign, field));
      const notice = own.notice({
        campaign: campaign ? own.campaignNamed(campaign.title, campaign.id) : first.campaignId,
        data: [own.rowFactsShort, ...fields].join(', '),
        partner: who,
        label: key.label,
        first: at(Math.min(...members.map((each) => each.first))),
        last: at(Math.max(...members.map((each) => each.last))),
        action: revoked !== undefined ? own.actionRevoked(at(revoked)) : own.actionPending,
      });
      write(`\n[${noticeLanguage}]\n${notice}\n`);
    }
    write(`\n${words.noticeTo}\n`);
    for (const member of members) {
      const contact = context.contacts.get(member.id);
      write(`  ${member.id}${contact ? `  ${contact}` : ''}\n`);
    }
  }
}
