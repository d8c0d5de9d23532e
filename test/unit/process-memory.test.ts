import { describe, expect, it } from 'vitest';
import { restartWithSettings } from '../../src/process-memory.ts';

const base = {
  execPath: '/opt/node',
  execArgv: ['--import', 'tsx'],
  scriptArgs: ['main.js', 'serve', '--port', '3000'],
};

describe('the memory settings a command starts with', () => {
  it('starts serve again with a small young generation and few malloc arenas', () => {
    const restart = restartWithSettings({
      ...base,
      command: 'serve',
      env: { PATH: '/bin', RESPONSE_CACHE_MB: '0' },
    });
    expect(restart?.args).toEqual([
      '/opt/node',
      '--max-semi-space-size=8',
      '--import',
      'tsx',
      'main.js',
      'serve',
      '--port',
      '3000',
    ]);
    expect(restart?.env).toEqual({ PATH: '/bin', RESPONSE_CACHE_MB: '0', MALLOC_ARENA_MAX: '2' });
    // With the response cache on (its default), the young generation has twice the room.
    const cached = restartWithSettings({ ...base, command: 'serve', env: {} });
    expect(cached?.args[1]).toBe('--max-semi-space-size=16');
  });

  it('keeps what the operator set, and does not start again once everything is set', () => {
    const sized = restartWithSettings({
      ...base,
      command: 'serve',
      env: { NODE_OPTIONS: '--trace-warnings --max-semi-space-size=16' },
    });
    expect(sized?.args).not.toContain(expect.stringMatching(/semi/));
    expect(sized?.env.MALLOC_ARENA_MAX).toBe('2');
    expect(sized?.env.NODE_OPTIONS).toBe('--trace-warnings --max-semi-space-size=16');
    const arenas = restartWithSettings({
      ...base,
      command: 'serve',
      execArgv: ['--max_semi_space_size=2'],
      env: { MALLOC_ARENA_MAX: '8' },
    });
    expect(arenas).toBeUndefined();
  });

  it('gives import its young generation and leaves other commands as started', () => {
    expect(restartWithSettings({ ...base, command: 'import', env: {} })).toEqual({
      args: ['/opt/node', '--max-semi-space-size=8', '--import', 'tsx', ...base.scriptArgs],
      env: {},
    });
    expect(restartWithSettings({ ...base, command: 'keys', env: {} })).toBeUndefined();
    expect(restartWithSettings({ ...base, command: undefined, env: {} })).toBeUndefined();
  });
});
