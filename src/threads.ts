import { Worker, type WorkerOptions } from 'node:worker_threads';

/**
 * Starts a worker thread on the module `name` beside the caller (`import.meta.url`), compiled or
 * not: run from the TypeScript sources (the CLI in development, the tests), the thread registers
 * tsx's loader before importing its entry, as the main thread had it from the command.
 */
export function startThread(beside: string, name: string, options: WorkerOptions): Worker {
  const source = beside.endsWith('.ts');
  const entry = new URL(`./${name}.${source ? 'ts' : 'js'}`, beside);
  if (!source) return new Worker(entry, options);
  const tsx = import.meta.resolve('tsx/esm/api');
  const bootstrap = `import(${JSON.stringify(tsx)}).then((tsx) => { tsx.register(); return import(${JSON.stringify(entry.href)}); });`;
  return new Worker(bootstrap, { ...options, eval: true });
}
