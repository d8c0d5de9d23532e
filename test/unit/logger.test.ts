import { describe, expect, it } from 'vitest';
import { createLoggers } from '../../src/logger.ts';
import { lineCapture } from '../helpers/app.ts';

describe('createLoggers', () => {
  it('masks secrets a stray object carries in the service log', () => {
    const { logs: lines, stream } = lineCapture();
    const { logger } = createLoggers('info', stream);
    logger.info(
      {
        headers: { authorization: 'Bearer hadir_sk_secret' },
        account: { password: 'hunter2', token: 'session-token', key: 'api-key' },
        token: 'device-token',
      },
      'stray',
    );
    expect(lines[0]).toMatchObject({
      headers: { authorization: '[redacted]' },
      account: { password: '[redacted]', token: '[redacted]', key: '[redacted]' },
      token: '[redacted]',
    });
    expect(JSON.stringify(lines)).not.toMatch(/secret|hunter2|session-token|api-key|device-token/);
  });

  it('writes access lines to the same destination, in order, at the same level', () => {
    const { logs: lines, stream } = lineCapture();
    const { logger, accessLogger } = createLoggers('warn', stream);
    accessLogger.info({ requestId: 'r1' }, 'data access');
    logger.warn('first');
    accessLogger.warn({ requestId: 'r2' }, 'data access');
    expect(lines.map((line) => [line.msg, line.requestId])).toEqual([
      ['first', undefined],
      ['data access', 'r2'],
    ]);
    expect(lines[1]).toMatchObject({ level: 40, pid: process.pid });
  });
});
