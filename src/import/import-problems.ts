import { DomainError } from '../errors.ts';

const MAX_REPORTED_PROBLEMS = 20;

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

  throwIfAny(): void {
    if (this.total === 0) return;
    const more = this.total - this.shown.length;
    throw new DomainError(
      'invalid',
      `import rejected, nothing was written:\n  ${this.shown.join('\n  ')}${more > 0 ? `\n  … and ${more} more` : ''}`,
    );
  }
}
