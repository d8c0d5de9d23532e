import { en, type Messages } from './messages-en.ts';
import { id } from './messages-id.ts';

export type { Messages } from './messages-en.ts';

/** The portal's languages: Indonesian first, as most holders read it; English for the rest. */
export const LANGUAGES = ['id', 'en'] as const;
export type Language = (typeof LANGUAGES)[number];

export const MESSAGES: Record<Language, Messages> = { id, en };
