import { Worker, type WorkerOptions } from 'node:worker_threads';

/**
 * Starts a worker thread on the module `name` beside the caller (`import.meta.url`), compiled or
 * not: run from the TypeScript sources (the CLI in development, the tests), the thread registers
 * tsx's loader before importing its entry, as the main thread had it from the command.
 */
export function startThread(beside: string, name: string, options: WorkerOptions): Worker {
  const { entry, source } = moduleBeside(beside, name);
  if (!source) return new Worker(entry, options);
  const tsx = import.meta.resolve('tsx/esm/api');
  const bootstrap = `import(${JSON.stringify(tsx)}).then((tsx) => { tsx.register(); return import(${JSON.stringify(entry.href)}); });`;
  return new Worker(bootstrap, { ...options, eval: true });
}

/**
 * The module `name` beside the caller (`import.meta.url`): its TypeScript source when the caller
 * runs from the sources (through tsx), else its compiled JavaScript.
 */
export function moduleBeside(beside: string, name: string): { entry: URL; source: boolean } {
  const source = beside.endsWith('.ts');
  return { entry: new URL(`./${name}.${source ? 'ts' : 'js'}`, beside), source };
}
