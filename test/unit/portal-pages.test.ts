import { describe, expect, it } from 'vitest';
import { jakartaDay, usageOutcome } from '../../src/keys/key-usage.ts';
import { EXPIRING_SOON_MS, keyState } from '../../src/portal/key-overview.ts';
import { safeReturnPath } from '../../src/portal-pages/browser-session.ts';
import { dateTime } from '../../src/portal-pages/format.ts';
import { html } from '../../src/portal-pages/html.ts';

const HOUR = 3_600_000;
const NOW = Date.parse('2026-11-23T10:00:00Z');

describe('html', () => {
  it('escapes every interpolated text, keeps nested markup, and drops nothing-values', () => {
    const name = '<script>alert("x")</script> & \'y\'';
    const inner = html`<b>${name}</b>`;
    expect(html`<p title="${name}">${inner}${null}${false}${[1, 2]}</p>`.text).toBe(
      '<p title="&lt;script&gt;alert(&quot;x&quot;)&lt;/script&gt; &amp; &#39;y&#39;"><b>&lt;script&gt;alert(&quot;x&quot;)&lt;/script&gt; &amp; &#39;y&#39;</b>12</p>',
    );
  });
});

describe('keyState', () => {
  const key = (
    over: Partial<{ revoked_at: number | null; expires_at: number; replaced_by_id: string | null }>,
  ) => ({
    revoked_at: null,
    expires_at: NOW + 90 * 24 * HOUR,
    replaced_by_id: null,
    ...over,
  });

  it('tells active, expiring soon, rotating out, expired and revoked apart', () => {
    expect(keyState(key({}), NOW)).toEqual({ kind: 'active', until: NOW + 90 * 24 * HOUR });
    expect(keyState(key({ expires_at: NOW + EXPIRING_SOON_MS }), NOW)).toEqual({
      kind: 'expiring_soon',
      at: NOW + EXPIRING_SOON_MS,
    });
    expect(keyState(key({ replaced_by_id: 'successor', expires_at: NOW + HOUR }), NOW)).toEqual({
      kind: 'rotating_out',
      until: NOW + HOUR,
    });
    expect(keyState(key({ revoked_at: NOW }), NOW)).toEqual({ kind: 'revoked', at: NOW });
    expect(keyState(key({ expires_at: NOW - 1 }), NOW)).toEqual({ kind: 'expired', at: NOW - 1 });
  });
});

describe('usage days', () => {
  it('counts in Jakarta days: 17:00 UTC is already the next day there', () => {
    expect(jakartaDay(Date.parse('2026-11-23T16:59:59Z'))).toBe('2026-11-23');
    expect(jakartaDay(Date.parse('2026-11-23T17:00:00Z'))).toBe('2026-11-24');
  });

  it('sorts answers into answered, 304, 429 and errors', () => {
    expect([200, 304, 429, 400, 404, 503].map(usageOutcome)).toEqual([
      'answered',
      'not_modified',
      'rate_limited',
      'errors',
      'errors',
      'errors',
    ]);
  });
});

describe('the portal’s small rules', () => {
  it('returns from a language switch to portal pages only', () => {
    expect(safeReturnPath('/developer/portal/keys')).toBe('/developer/portal/keys');
    for (const unsafe of [
      'https://evil.test/',
      '//evil.test',
      '/developer/portal//evil.test',
      '/other',
      undefined,
    ]) {
      expect(safeReturnPath(unsafe)).toBe('/developer/portal');
    }
  });

  it('shows instants in Jakarta time, naming the zone', () => {
    expect(dateTime('en', Date.parse('2026-11-23T17:30:00Z'))).toBe('24 Nov 2026, 00:30 WIB');
    expect(dateTime('id', null)).toBe('belum pernah');
  });
});
