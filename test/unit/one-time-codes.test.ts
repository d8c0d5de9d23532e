import { describe, expect, it } from 'vitest';
import { codeDigest, codeMail, generateCode } from '../../src/portal/one-time-codes.ts';

const SECRET = Buffer.alloc(32, 7);

describe('one-time codes', () => {
  it('are six digits, leading zeros kept', () => {
    for (let i = 0; i < 200; i++) expect(generateCode()).toMatch(/^[0-9]{6}$/);
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
