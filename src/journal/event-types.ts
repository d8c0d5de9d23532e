/** The notifications' event types, apart so that their data's schemas can name them. */
export const EVENT_TYPES = [
  'respondents.changed',
  'respondents.removed',
  'campaign.updated',
  'campaign.removed',
  'campaign.added',
  'key.expiring',
  'webhook.test',
] as const;
export type EventType = (typeof EVENT_TYPES)[number];

export function isEventType(value: string): value is EventType {
  return (EVENT_TYPES as readonly string[]).includes(value);
}

/** respondents.changed → RespondentsChangedEvent: the name clients' types are generated under. */
export function eventTitle(type: EventType): string {
  return `${type.replace(/(^|\.)(\w)/g, (_, _dot, letter: string) => letter.toUpperCase())}Event`;
}
