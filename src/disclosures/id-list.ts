import { isRecordId } from '../record-ids.ts';

/**
 * Which respondents an answer carried, as the record keeps them: their ids joined by commas with
 * a comma at each end (`,a,b,`), or '' for none. A record id holds no comma (record-ids.ts), so
 * `,id,` occurs in a list exactly when the id is in it, and the store finds it by a plain
 * substring search, on either engine, without parsing the list.
 */
export type IdList = string & { readonly idList: unique symbol };

export const NO_IDS = '' as IdList;

/** The list of `ids`, in their order. */
export function idListOf(ids: Iterable<string>): IdList {
  const builder = new IdListBuilder();
  for (const id of ids) builder.add(id);
  return builder.finish();
}

/** An id list built one id at a time, as a page is written. */
export class IdListBuilder {
  #text = '';

  add(id: string): void {
    if (!isRecordId(id)) throw new Error('an id list holds record ids only');
    this.#text += `,${id}`;
  }

  /** Adds the id at `text[start, end)`, which the caller knows is a record id. */
  addSlice(text: string, start: number, end: number): void {
    this.#text += `,${text.slice(start, end)}`;
  }

  finish(): IdList {
    return (this.#text === '' ? '' : `${this.#text},`) as IdList;
  }
}

/** What the store looks for to find `id` in a list. */
export function idNeedle(id: string): string {
  return `,${id},`;
}

/** Whether `list` names `id`. */
export function listHolds(list: IdList | string, id: string): boolean {
  return list.includes(idNeedle(id));
}

/** The ids of a list, in its order. */
export function idsIn(list: IdList | string): string[] {
  return list === '' ? [] : list.slice(1, -1).split(',');
}

/** How many ids a list names. */
export function countIds(list: IdList | string): number {
  if (list === '') return 0;
  let count = -1;
  for (let at = list.indexOf(','); at >= 0; at = list.indexOf(',', at + 1)) count++;
  return count;
}
