import { SMTPServer } from 'smtp-server';
import { createSmtpMailer } from '../../src/mail/mailer.ts';
import { startTestApp, type TestApp } from './app.ts';

export interface ReceivedMail {
  to: string[];
  raw: string;
  subject: string;
}

/** A message's text as its reader sees it: quoted-printable soft breaks and escapes undone. */
export function mailText(mail: ReceivedMail): string {
  return mail.raw
    .replace(/=\r?\n/g, '')
    .replace(/=([0-9A-F]{2})/g, (_, hex: string) => String.fromCharCode(Number.parseInt(hex, 16)));
}

/** The reset link in a message, if it holds one. */
export function resetLinkIn(mail: ReceivedMail | undefined): string | undefined {
  return mail
    ? /(https?:\/\/\S+reset-password\?token=[0-9a-f.-]+)/.exec(mailText(mail))?.[1]
    : undefined;
}

/** A real SMTP server on loopback that keeps every message it receives. */
export interface TestSmtpServer {
  url: string;
  messages: ReceivedMail[];
  /** The 6-digit code in the newest message to `to`, waiting briefly for it to arrive. */
  codeFor(to: string, afterCount?: number): Promise<string>;
  close(): Promise<void>;
}

export async function startSmtpServer(): Promise<TestSmtpServer> {
  const messages: ReceivedMail[] = [];
  const server = new SMTPServer({
    authOptional: true,
    disabledCommands: ['STARTTLS', 'AUTH'],
    logger: false,
    onData(stream, session, callback) {
      let raw = '';
      stream.on('data', (chunk: Buffer) => {
        raw += chunk.toString();
      });
      stream.on('end', () => {
        const subject = /^Subject: (.*)$/m.exec(raw)?.[1] ?? '';
        messages.push({ to: session.envelope.rcptTo.map((rcpt) => rcpt.address), raw, subject });
        callback();
      });
    },
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.server.address();
  const port = typeof address === 'object' && address ? address.port : 0;
  return {
    url: `smtp://127.0.0.1:${port}`,
    messages,
    async codeFor(to, afterCount = 0) {
      const deadline = Date.now() + 5000;
      for (;;) {
        const mine = messages.filter((message) => message.to.includes(to));
        const newest = mine.length > afterCount ? mine.at(-1) : undefined;
        const code = newest && /(\d{6})/.exec(newest.subject)?.[1];
        if (code) return code;
        if (Date.now() > deadline) throw new Error(`no code e-mailed to ${to}`);
        await new Promise((resolve) => setTimeout(resolve, 10));
      }
    },
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

/**
 * A test app whose mail goes to an SMTP server of its own on loopback, as a real deployment's
 * would; `close` stops both.
 */
export async function startMailingApp(
  engineOrStore: Parameters<typeof startTestApp>[0],
  options: Parameters<typeof startTestApp>[1] = {},
): Promise<{ t: TestApp; smtp: TestSmtpServer; close(): Promise<void> }> {
  const smtp = await startSmtpServer();
  const t = await startTestApp(engineOrStore, {
    ...options,
    mailer: createSmtpMailer(smtp.url, 'Hadir <no-reply@hadir.test>'),
  });
  return {
    t,
    smtp,
    async close() {
      await t.close();
      await smtp.close();
    },
  };
}
