import { randomBytes } from 'node:crypto';
import { mkdir, readdir, readFile, rename, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { createTransport } from 'nodemailer';
import type { Mail, Mailer } from '@chat/api';
import type { Config } from './config.js';
import type { EmailSettings } from './mail-config.js';

/** A mail as the outbox keeps it. */
export interface OutboxMail extends Mail {
  file: string;
  from: string;
  date: string;
}

export const outboxDir = (dataDir: string) => join(dataDir, 'outbox');

/** Real delivery through an SMTP server; nodemailer speaks the protocol. */
export function smtpMailer(settings: EmailSettings & { host: string }, from: string): Mailer {
  const transport = createTransport({
    host: settings.host,
    port: settings.port,
    secure: settings.useSsl,
    requireTLS: settings.useTls && !settings.useSsl,
    ...(settings.user ? { auth: { user: settings.user, pass: settings.password ?? '' } } : {}),
  });
  return {
    async send(mail) {
      await transport.sendMail({ from, to: mail.to, subject: mail.subject, text: mail.text });
    },
  };
}

/**
 * Development delivery: each mail becomes a file in DATA_DIR/outbox, named
 * so that listing the folder shows them oldest first. Written under a
 * temporary name and renamed, so a reader never sees half a mail.
 */
export function outboxMailer(dataDir: string, from: string): Mailer {
  const dir = outboxDir(dataDir);
  return {
    async send(mail) {
      await mkdir(dir, { recursive: true });
      const now = new Date();
      const name = `${now.toISOString().replace(/[:.]/g, '-')}-${randomBytes(4).toString('hex')}.eml`;
      const headers = [`From: ${from}`, `To: ${mail.to}`, `Subject: ${mail.subject}`, `Date: ${now.toUTCString()}`];
      const content = `${headers.join('\n')}\nContent-Type: text/plain; charset=utf-8\n\n${mail.text}\n`;
      await writeFile(join(dir, `.${name}.tmp`), content);
      await rename(join(dir, `.${name}.tmp`), join(dir, name));
    },
  };
}

/** SMTP when EMAIL_HOST is set in production; the outbox otherwise. */
export function createMailer(config: Config, externalUrl: string): Mailer {
  const from = config.email.noreplyAddress ?? `noreply@${new URL(externalUrl).hostname}`;
  const host = config.email.host;
  if (config.mode === 'production' && host) return smtpMailer({ ...config.email, host }, from);
  return outboxMailer(config.dataDir, from);
}

/** The mails in the outbox, oldest first. */
export async function readOutbox(dataDir: string): Promise<OutboxMail[]> {
  const dir = outboxDir(dataDir);
  const names = await readdir(dir).catch((err: NodeJS.ErrnoException) => {
    if (err.code === 'ENOENT') return [] as string[];
    throw err;
  });
  const mails: OutboxMail[] = [];
  for (const file of names.filter((n) => n.endsWith('.eml')).sort()) {
    const raw = await readFile(join(dir, file), 'utf8');
    const split = raw.indexOf('\n\n');
    const header = (name: string) =>
      raw
        .slice(0, split)
        .split('\n')
        .find((line) => line.startsWith(`${name}: `))
        ?.slice(name.length + 2) ?? '';
    const text = raw.slice(split + 2).replace(/\n$/, '');
    mails.push({
      file,
      from: header('From'),
      to: header('To'),
      subject: header('Subject'),
      date: header('Date'),
      text,
    });
  }
  return mails;
}
