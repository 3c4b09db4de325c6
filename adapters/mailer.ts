import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { randomUUID } from 'node:crypto';
import { SendEmailCommand, type SESClient } from '@aws-sdk/client-ses';
import { createSesClient, type CallSettings } from './clients';

export interface MailMessage {
  to: string;
  subject: string;
  text: string;
  replyTo?: string;
}

/** Sends through SES (on AWS), from the configured address. */
export function sesMailer(settings: { region: string; from: string; calls?: CallSettings }) {
  let ses: SESClient | undefined;
  return {
    async send(message: MailMessage): Promise<void> {
      ses ??= createSesClient(settings);
      await ses.send(
        new SendEmailCommand({
          Source: settings.from,
          Destination: { ToAddresses: [message.to] },
          ReplyToAddresses: message.replyTo ? [message.replyTo] : undefined,
          Message: {
            Subject: { Data: message.subject, Charset: 'UTF-8' },
            Body: { Text: { Data: message.text, Charset: 'UTF-8' } },
          },
        }),
      );
    },
  };
}

/** Local only: every message becomes an .eml file in the local mail folder. */
export function localMailer(settings: { dir: string; from: string }) {
  return { send: async (message: MailMessage): Promise<void> => void (await writeLocalMail(settings.dir, settings.from, message)) };
}

/** Local only: one RFC 822 file per message, named so that a listing sorts by time. */
export async function writeLocalMail(dir: string, from: string, message: MailMessage): Promise<string> {
  await mkdir(dir, { recursive: true });
  const date = new Date();
  const file = join(dir, `${date.toISOString().replace(/[:.]/g, '-')}-${randomUUID().slice(0, 8)}.eml`);
  const headers = [
    `From: ${from}`,
    `To: ${message.to}`,
    ...(message.replyTo ? [`Reply-To: ${message.replyTo}`] : []),
    `Subject: ${message.subject}`,
    `Date: ${date.toUTCString()}`,
    'MIME-Version: 1.0',
    'Content-Type: text/plain; charset=utf-8',
    'Content-Transfer-Encoding: 8bit',
  ];
  await writeFile(file, `${headers.join('\r\n')}\r\n\r\n${message.text.replace(/\r?\n/g, '\r\n')}\r\n`);
  return file;
}
