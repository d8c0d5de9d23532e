/** A mistake on the command line (a missing option, a malformed value); the CLI prints it. */
export class UsageError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'UsageError';
  }
}
