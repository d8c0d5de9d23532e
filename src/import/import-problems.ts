import { DomainError } from '../errors.ts';

const MAX_REPORTED_PROBLEMS = 20;

/** Problems in words after `lead`: one a line, then how many more were counted. */
export function problemsText(lead: string, problems: readonly string[], unshown: number): string {
  const more = unshown > 0 ? `\n  … and ${unshown} more` : '';
  return `${lead}:\n  ${problems.join('\n  ')}${more}`;
}

/** An import refused for its records' problems: nothing was written. */
export class ImportRefused extends DomainError {
  constructor(
    /** The problems spelled out, `where: what` each. */
    readonly problems: readonly string[],
    /** Problems counted beyond those. */
    readonly unshown: number,
  ) {
    super('invalid', problemsText('import rejected, nothing was written', problems, unshown));
  }
}

/**
 * The problems of an import: every one counted, the first twenty kept to be shown. Keeping only
 * those keeps memory flat however many records of a large file are bad.
 */
export class Problems {
  private readonly shown: string[] = [];
  private total = 0;

  /** `maxShown`: how many are spelled out (a batch of the ingest API names every one). */
  constructor(private readonly maxShown = MAX_REPORTED_PROBLEMS) {}

  add(where: string, what: string): void {
    this.total += 1;
    if (this.shown.length < this.maxShown) this.shown.push(`${where}: ${what}`);
  }

  /** Counts problems that are not spelled out (more records with a problem already shown). */
  addUnshown(count: number): void {
    this.total += count;
  }

  get any(): boolean {
    return this.total > 0;
  }

  /** How many problems were counted so far. */
  get count(): number {
    return this.total;
  }

  throwIfAny(): void {
    if (this.total === 0) return;
    throw new ImportRefused([...this.shown], this.total - this.shown.length);
  }
}
