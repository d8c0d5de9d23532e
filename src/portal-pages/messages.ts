import type { DisabledMail, DisableReason } from '../notifications/delivery-worker.ts';
import { en, type Messages } from './messages-en.ts';
import { id } from './messages-id.ts';

export type { Messages } from './messages-en.ts';

/** The portal's languages: Indonesian first, as most holders read it; English for the rest. */
export const LANGUAGES = ['id', 'en'] as const;
export type Language = (typeof LANGUAGES)[number];

export const MESSAGES: Record<Language, Messages> = { id, en };

/**
 * The mail that tells a holder the delivery worker turned their endpoint off: Indonesian first,
 * then English, as the portal's other mails are written.
 */
export function endpointDisabledMail(url: string, reason: DisableReason): ReturnType<DisabledMail> {
  const [id, en] = [MESSAGES.id.webhooks, MESSAGES.en.webhooks].map((words) => ({
    subject: words.disabledMail.subject,
    text: words.disabledMail.text(url, words.disabledWhy[reason] ?? reason),
  })) as [{ subject: string; text: string }, { subject: string; text: string }];
  return { subject: `${id.subject} / ${en.subject}`, text: `${id.text}\n\n${en.text}` };
}
