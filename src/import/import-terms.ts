import type { DroppedValues } from './import-records.ts';

/** What an import reports when it is done. */
export interface ImportCounts {
  campaigns: { upserted: number; deleted: number };
  respondents: { upserted: number; deleted: number };
  /** Respondent records skipped as stale: their version was not newer than the one held. */
  stale: number;
  /** Never-served values left out (see NeverServed). */
  dropped: DroppedValues;
  /**
   * Respondent records not applied because an operator erased the person (an erasure hold):
   * where each is and its id, the first hundred of them, and how many in all.
   */
  keptErased: { count: number; records: Array<{ where: string; id: string }> };
  /**
   * Respondent records that answer questions their campaign does not have (the platform's form
   * and its records disagree): where each is, its id and those field keys (never a value), the
   * first hundred of them, and how many in all. The answers are kept: a key may name a
   * question a campaign will gain (see FieldCheck), and serves them once it has it.
   */
  unknownAnswers: {
    count: number;
    records: Array<{ where: string; id: string; fields: string[] }>;
  };
}

/** Who runs an import, for its audit line, and how many of its problems it spells out. */
export interface ImportOptions {
  actor?: string;
  action?: string;
  problemsShown?: number;
  /**
   * Awaited once, just before the import first writes a row that other writers share (a
   * campaign, its counts, a removal): what came before (reading and checking the records,
   * claiming their versions, staging them) runs beside other writers, the rest after them.
   */
  beforeSharedWrites?: () => Promise<void>;
}
