import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import nodemailer from 'nodemailer';
import type { Logger } from 'pino';
import { ConfigError } from '../errors.ts';
import { securePrivateFolder } from '../file-modes.ts';

export interface MailMessage {
  to: string;
  subject: string;
  text: string;
}

/** Sends one message; rejects when it could not be handed over. */
export interface Mailer {
  send(message: MailMessage): Promise<void>;
  close(): void;
  /** The development outbox's folder, for the portal's mailbox page; never set with SMTP. */
  readonly outboxFolder?: string;
}

/** A message kept in the development outbox, as the mailbox page lists it. */
export interface OutboxMail extends MailMessage {
  sentAt: number;
}

export const DEVELOPMENT_OUTBOX = './data/outbox';

/** Real e-mail over SMTP, e.g. smtp://user:pass@mail.example.com:587 or smtp://127.0.0.1:2525. */
export function createSmtpMailer(smtpUrl: string, from: string): Mailer {
  const transport = nodemailer.createTransport(smtpUrl);
  return {
    async send(message) {
      await transport.sendMail({ from, ...message });
    },
    close: () => transport.close(),
  };
}

/**
 * For development without SMTP: each message becomes an .eml file in the outbox (and a .json of
 * the same message for the portal's mailbox page), and a log line says where. The log line
 * carries no code: codes are secrets even in development.
 */
export function createOutboxMailer(folder: string, from: string, logger: Logger): Mailer {
  const transport = nodemailer.createTransport({
    streamTransport: true,
    buffer: true,
    newline: 'unix',
  });
  let sequence = 0;
  return {
    async send(message) {
      const info = await transport.sendMail({ from, ...message });
      securePrivateFolder(folder, (warning) => logger.warn(warning));
      sequence += 1;
      const sentAt = Date.now();
      const name = `${new Date(sentAt).toISOString().replaceAll(':', '-')}-${String(sequence).padStart(6, '0')}`;
      const file = join(folder, `${name}.eml`);
      writeFileSync(file, info.message as Buffer, { mode: 0o600 });
      const kept: OutboxMail = { ...message, sentAt };
      writeFileSync(join(folder, `${name}.json`), JSON.stringify(kept), { mode: 0o600 });
      logger.info({ to: message.to, file }, 'mail written to the development outbox');
    },
    close: () => transport.close(),
    outboxFolder: folder,
  };
}

/** The newest messages of a development outbox, newest first; none when it does not exist yet. */
export function readOutbox(folder: string, limit = 20): OutboxMail[] {
  let names: string[];
  try {
    names = readdirSync(folder).filter((name) => name.endsWith('.json'));
  } catch {
    return [];
  }
  return names
    .sort()
    .reverse()
    .slice(0, limit)
    .map((name) => JSON.parse(readFileSync(join(folder, name), 'utf8')) as OutboxMail);
}

/** SMTP when SMTP_URL is set; the outbox in development; in production a missing SMTP_URL stops the start. */
export function createMailer(
  options: { smtpUrl?: string; mailFrom: string; production: boolean },
  logger: Logger,
): Mailer {
  if (options.smtpUrl) return createSmtpMailer(options.smtpUrl, options.mailFrom);
  if (options.production) {
    throw new ConfigError('SMTP_URL must be set in production: one-time codes are sent by e-mail');
  }
  return createOutboxMailer(DEVELOPMENT_OUTBOX, options.mailFrom, logger);
}
