import { describe, expect, it } from 'vitest';
import {
  countIds,
  type IdList,
  idListOf,
  idsIn,
  listHolds,
  NO_IDS,
} from '../../src/disclosures/id-list.ts';
import { recordedInParts } from '../../src/disclosures/recorded-parts.ts';

describe('an id list', () => {
  it('names exactly its ids: no id is found inside another', () => {
    const list = idListOf(['tamu-1', 'tamu-12', 'a.b~c_d']);
    expect(list).toBe(',tamu-1,tamu-12,a.b~c_d,');
    expect(idsIn(list)).toEqual(['tamu-1', 'tamu-12', 'a.b~c_d']);
    expect(countIds(list)).toBe(3);
    expect(listHolds(list, 'tamu-1')).toBe(true);
    expect(listHolds(list, 'tamu-12')).toBe(true);
    expect(listHolds(list, 'tamu-2')).toBe(false);
    expect(listHolds(list, 'amu-1')).toBe(false);
    expect(listHolds(list, 'b~c')).toBe(false);
    expect([idsIn(NO_IDS), countIds(NO_IDS), listHolds(NO_IDS, 'x')]).toEqual([[], 0, false]);
  });

  it('refuses what is not a record id, which could break its commas', () => {
    expect(() => idListOf(['a,b'])).toThrow('record ids only');
    expect(() => idListOf([''])).toThrow('record ids only');
  });
});

describe('a file recorded in parts', () => {
  it('hands on no row of a part before its line is written, and records every part once', async () => {
    const rows = Array.from({ length: 7 }, (_, n) => ({ id: `r${n}` }));
    async function* source() {
      yield* rows;
    }
    const recorded: string[][] = [];
    const pending: Array<() => void> = [];
    const record = (ids: IdList) =>
      new Promise<void>((resolve) => {
        recorded.push(idsIn(ids));
        pending.push(() => resolve());
      });
    const taken: string[] = [];
    const reading = (async () => {
      for await (const row of recordedInParts(source(), record, 3)) taken.push(row.id);
    })();
    // The first two parts are asked for at once (the second read while the first is written);
    // nothing is handed on until the first is written.
    await new Promise((resolve) => setImmediate(resolve));
    expect(recorded).toEqual([
      ['r0', 'r1', 'r2'],
      ['r3', 'r4', 'r5'],
    ]);
    expect(taken).toEqual([]);
    pending.shift()?.();
    await new Promise((resolve) => setImmediate(resolve));
    expect(taken).toEqual(['r0', 'r1', 'r2']);
    // The last, short part is recorded before its one row goes.
    expect(recorded.at(-1)).toEqual(['r6']);
    pending.shift()?.();
    await new Promise((resolve) => setImmediate(resolve));
    expect(taken).toEqual(['r0', 'r1', 'r2', 'r3', 'r4', 'r5']);
    pending.shift()?.();
    await reading;
    expect(taken).toEqual(rows.map((row) => row.id));
    expect(recorded.flat()).toEqual(rows.map((row) => row.id));
  });

  it('fails the file when a part cannot be recorded, handing on nothing of it', async () => {
    async function* source() {
      yield* [{ id: 'r0' }, { id: 'r1' }];
    }
    const taken: string[] = [];
    const failing = () => Promise.reject(new Error('the store is away'));
    await expect(
      (async () => {
        for await (const row of recordedInParts(source(), failing, 5)) taken.push(row.id);
      })(),
    ).rejects.toThrow('the store is away');
    expect(taken).toEqual([]);
  });
});
