import { DomainError } from '../errors.ts';

const MAX_REPORTED_PROBLEMS = 20;

/** The problems of an import, every one counted, the first twenty shown. */
export class Problems {
  readonly list: string[] = [];
  add(where: string, what: string): void {
    this.list.push(`${where}: ${what}`);
  }
  throwIfAny(): void {
    if (this.list.length === 0) return;
    const shown = this.list.slice(0, MAX_REPORTED_PROBLEMS);
    const more = this.list.length - shown.length;
    throw new DomainError(
      'invalid',
      `import rejected, nothing was written:\n  ${shown.join('\n  ')}${more > 0 ? `\n  … and ${more} more` : ''}`,
    );
  }
}

/** Throws the same kind of report for problems found against the database. */
export function rejectImport(problems: string[]): never {
  const collected = new Problems();
  for (const problem of problems) collected.list.push(problem);
  collected.throwIfAny();
  throw new DomainError('invalid', 'import rejected');
}
