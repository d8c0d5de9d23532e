import { randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import {
  codeDigest,
  codeIdOfResetLink,
  codeMail,
  deriveCode,
  resetLinkToken,
} from '../../src/portal/one-time-codes.ts';

const SECRET = Buffer.alloc(32, 7);

describe('one-time codes', () => {
  it('are six digits, leading zeros kept, one per code row and secret', () => {
    const codes = new Set<string>();
    for (let i = 0; i < 2000; i++) {
      const id = randomUUID();
      const code = deriveCode(SECRET, id);
      expect(code).toMatch(/^[0-9]{6}$/);
      expect(deriveCode(SECRET, id)).toBe(code);
      codes.add(code);
    }
    // 2,000 draws from a million values: a handful of repeats at most.
    expect(codes.size).toBeGreaterThan(1990);
    expect([...codes].some((code) => code.startsWith('0'))).toBe(true);
    const id = randomUUID();
    expect(deriveCode(Buffer.alloc(32, 8), id)).not.toBe(deriveCode(SECRET, id));
  });

  it('come with a reset link only the server can make, naming its code row', () => {
    const id = randomUUID();
    const token = resetLinkToken(SECRET, id);
    expect(token).toMatch(/^[0-9a-f-]{36}\.[0-9a-f]{64}$/);
    expect(codeIdOfResetLink(SECRET, token)).toBe(id);
    expect(codeIdOfResetLink(Buffer.alloc(32, 8), token)).toBeUndefined();
    expect(codeIdOfResetLink(SECRET, `${randomUUID()}${token.slice(36)}`)).toBeUndefined();
    expect(codeIdOfResetLink(SECRET, 'garbage')).toBeUndefined();
    const mail = codeMail('password_reset', '123456', `https://hadir.example/r?token=${token}`);
    expect(mail.text).toContain(`https://hadir.example/r?token=${token}`);
    expect(mail.text).toMatch(/valid for 10 minutes/);
  });

  it('are stored as an HMAC bound to purpose, account and session', () => {
    const login = { purpose: 'login' as const, accountId: 'a1', sessionId: null };
    const digest = codeDigest(SECRET, '012345', login);
    expect(digest).toMatch(/^[0-9a-f]{64}$/);
    expect(digest).not.toContain('012345');
    expect(codeDigest(SECRET, '012345', login)).toBe(digest);
    expect(codeDigest(SECRET, '012345', { ...login, accountId: 'a2' })).not.toBe(digest);
    expect(codeDigest(SECRET, '012345', { ...login, purpose: 'step_up', sessionId: 's' })).not.toBe(
      digest,
    );
    expect(codeDigest(Buffer.alloc(32, 8), '012345', login)).not.toBe(digest);
  });

  it('travel in a mail that says what they are for, in Indonesian and English', () => {
    const login = codeMail('login', '123456');
    expect(login.subject).toContain('123456');
    expect(login.text).toMatch(/Kode masuk/);
    expect(login.text).toMatch(/sign-in code is 123456/);
    const stepUp = codeMail('step_up', '654321');
    expect(stepUp.text).toMatch(/key reveal or rotation/);
    expect(stepUp.text).not.toMatch(/sign-in/);
  });
});
