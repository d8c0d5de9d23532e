import { mkdtempSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pino from 'pino';
import { describe, expect, it } from 'vitest';
import { isCommonPassword } from '../../src/accounts/common-passwords.ts';
import { loadConfig } from '../../src/config.ts';
import { createMailer, createOutboxMailer, readOutbox } from '../../src/mail/mailer.ts';
import { loadServerSecrets, serverSecretsOf } from '../../src/secrets.ts';

const silent = pino({ level: 'silent' });

describe('server secrets', () => {
  it('generates missing secrets once in development, in a file only the owner can read', () => {
    const file = join(mkdtempSync(join(tmpdir(), 'hadir-secrets-')), 'secrets.json');
    const first = loadServerSecrets({}, false, file);
    const second = loadServerSecrets({}, false, file);
    expect(first.codeHmacKey.equals(second.codeHmacKey)).toBe(true);
    expect(first.keySealKey).toHaveLength(32);
    expect(statSync(file).mode & 0o777).toBe(0o600);
  });

  it('stops a production start without them, naming what is missing', () => {
    expect(() => loadServerSecrets({ codeHmacKey: 'a'.repeat(64) }, true)).toThrow(
      /KEY_SEAL_SECRET must be set in production/,
    );
    expect(() =>
      loadServerSecrets({ codeHmacKey: 'xyz', keySealKey: 'b'.repeat(64) }, true),
    ).toThrow(/CODE_HMAC_SECRET must be 64 hexadecimal/);
  });

  it('keeps development secrets beside the SQLite database, whatever folder a command starts in', () => {
    const folder = mkdtempSync(join(tmpdir(), 'hadir-secrets-'));
    const config = loadConfig({ DATABASE_URL: `sqlite:${join(folder, 'hadir.sqlite')}` });
    const here = serverSecretsOf(config);
    const cwd = process.cwd();
    try {
      process.chdir('/');
      expect(serverSecretsOf(config).keySealKey.equals(here.keySealKey)).toBe(true);
    } finally {
      process.chdir(cwd);
    }
    expect(readdirSync(folder)).toContain('secrets.json');
  });

  it('reads them from the environment', () => {
    const config = loadConfig({
      CODE_HMAC_SECRET: 'a'.repeat(64),
      KEY_SEAL_SECRET: 'b'.repeat(64),
    });
    expect(config.codeHmacSecret).toBe('a'.repeat(64));
  });
});

describe('mail', () => {
  it('stops a production start without SMTP_URL', () => {
    expect(() => createMailer({ mailFrom: 'x@example.test', production: true }, silent)).toThrow(
      /SMTP_URL must be set in production/,
    );
  });

  it('writes development mail to the outbox as .eml files', async () => {
    const folder = mkdtempSync(join(tmpdir(), 'hadir-outbox-'));
    const mailer = createOutboxMailer(folder, 'Hadir <no-reply@hadir.test>', silent);
    await mailer.send({
      to: 'a@example.test',
      subject: 'Kode masuk Hadir: 123456',
      text: 'Your Hadir sign-in code is 123456.',
    });
    const file = readdirSync(folder).find((name) => name.endsWith('.eml'));
    const message = readFileSync(join(folder, file as string), 'utf8');
    expect(message).toContain('Subject: Kode masuk Hadir: 123456');
    expect(message).toContain('To: a@example.test');
    // The portal's development mailbox page reads the same message back.
    expect(readOutbox(folder)).toMatchObject([
      { to: 'a@example.test', subject: 'Kode masuk Hadir: 123456' },
    ]);
  });
});

describe('common passwords', () => {
  it('knows thousands of common passwords, without regard to case', () => {
    expect(isCommonPassword('password1234')).toBe(true);
    expect(isCommonPassword('PASSWORD1234')).toBe(true);
    expect(isCommonPassword('kopi-tubruk-pagi-hari')).toBe(false);
  });
});
