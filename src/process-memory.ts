import { readResponseCacheMb } from './config.ts';

/**
 * Memory settings that must be in place when a process starts: V8 fixes its young generation's
 * size when it makes the heap, and glibc reads MALLOC_ARENA_MAX when the process loads. Left to
 * themselves, both size by the machine (V8's young generation grows to 128 MB on a large one,
 * glibc keeps up to eight arenas per core), far past what a server or an import uses. So the CLI
 * starts `serve` and `import` over again at once, on the same process id, with them set
 * (docs/performance.md, Memory, has the measurements behind the values).
 */

/** What a command runs with; a setting the operator gave is theirs and is never replaced. */
export interface ProcessSettings {
  /** `--max-semi-space-size` in MB (the young generation is two of these). */
  semiSpaceMb: number;
  /** MALLOC_ARENA_MAX, or undefined to leave glibc's default. */
  mallocArenas: number | undefined;
}

/**
 * The settings of a command, for the environment it runs in; undefined for a command that runs
 * as it was started.
 */
export function settingsFor(
  command: string | undefined,
  env: NodeJS.ProcessEnv,
): ProcessSettings | undefined {
  switch (command) {
    case 'serve':
      // A page is a few hundred kB of short-lived strings: semi-spaces of 8 MB collect them at
      // about the CPU per request of V8's own (far larger) ones, and smaller ones cost
      // measurably more (docs/performance.md, Memory). With the response cache on, answers are
      // quick and many more requests a second fill the young generation with their objects: it
      // gets twice the room, out of the memory the cache's budget allows for. The page threads
      // and the pool allocate from threads of their own, each of which glibc would give an
      // arena of its own.
      return { semiSpaceMb: responseCacheOn(env) ? 16 : 8, mallocArenas: 2 };
    case 'import':
      // A streamed import's working set is one batch of records.
      return { semiSpaceMb: 8, mallocArenas: undefined };
    default:
      return undefined;
  }
}

/** Whether RESPONSE_CACHE_MB leaves the cache on; a wrong value is the start-up's to report. */
function responseCacheOn(env: NodeJS.ProcessEnv): boolean {
  try {
    return readResponseCacheMb(env) > 0;
  } catch {
    return true;
  }
}

const SEMI_SPACE_FLAG = /^--(max|min)[-_]semi[-_]space[-_]size(=|$)/;

/** How to start the process again with its settings, or undefined when it already has them. */
export function restartWithSettings(options: {
  command: string | undefined;
  execPath: string;
  execArgv: readonly string[];
  /** The script and its arguments (process.argv without the runtime). */
  scriptArgs: readonly string[];
  env: NodeJS.ProcessEnv;
}): { args: string[]; env: NodeJS.ProcessEnv } | undefined {
  const { command, execPath, execArgv, scriptArgs, env } = options;
  const settings = settingsFor(command, env);
  if (!settings) return undefined;
  const flags = [...execArgv, ...(env.NODE_OPTIONS ?? '').split(/\s+/)];
  const sizeYoung = !flags.some((flag) => SEMI_SPACE_FLAG.test(flag));
  const setArenas = settings.mallocArenas !== undefined && env.MALLOC_ARENA_MAX === undefined;
  if (!sizeYoung && !setArenas) return undefined;
  return {
    args: [
      execPath,
      ...(sizeYoung ? [`--max-semi-space-size=${settings.semiSpaceMb}`] : []),
      ...execArgv,
      ...scriptArgs,
    ],
    env: setArenas ? { ...env, MALLOC_ARENA_MAX: String(settings.mallocArenas) } : env,
  };
}

/**
 * Replaces this process with itself under its command's settings (see restartWithSettings); a
 * no-op where it has them, or where the runtime cannot replace a process (not on POSIX).
 */
export function startWithSettings(command: string | undefined): void {
  if (typeof process.execve !== 'function') return;
  const restart = restartWithSettings({
    command,
    execPath: process.execPath,
    execArgv: process.execArgv,
    scriptArgs: process.argv.slice(1),
    env: process.env,
  });
  if (restart) process.execve(process.execPath, restart.args, restart.env);
}
