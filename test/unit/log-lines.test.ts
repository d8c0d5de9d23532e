import { describe, expect, it } from 'vitest';
import { readableLine } from '../../src/log-lines.ts';

describe('readable log lines', () => {
  it('turns an access line into method, path, status, rows and time', () => {
    const access = JSON.stringify({
      level: 30,
      msg: 'data access',
      method: 'GET',
      route: '/developer/v1/campaigns/:id/respondents',
      campaignId: 'nikah',
      status: 200,
      rows: 3,
      durationMs: 2.41,
    });
    expect(readableLine(access)).toBe(
      'GET /developer/v1/campaigns/nikah/respondents → 200  3 rows  2.41 ms',
    );
  });

  it('names the level of what is not info, with its cause', () => {
    const warn = JSON.stringify({
      level: 40,
      msg: 'store unreachable',
      err: { message: 'ECONNREFUSED' },
    });
    expect(readableLine(warn)).toBe('warn: store unreachable (ECONNREFUSED)');
    expect(readableLine(JSON.stringify({ level: 30, msg: 'Server listening at http://x' }))).toBe(
      'Server listening at http://x',
    );
  });
});
