import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { randomUUID } from 'node:crypto';
import { SESClient, SendEmailCommand } from '@aws-sdk/client-ses';
import { getConfig } from '../core/config';
import { clientSettings, instrument } from './clients';

export interface MailMessage {
  to: string;
  subject: string;
  text: string;
  replyTo?: string;
}

let ses: SESClient | undefined;

/** Sends one e-mail: through SES on AWS, as an .eml file in the local mail folder otherwise. */
export async function sendMail(message: MailMessage): Promise<void> {
  const config = getConfig();
  if (config.MAIL_MODE === 'local') {
    if (!config.MAIL_DIR) throw new Error('MAIL_DIR must be set when MAIL_MODE is local');
    await writeLocalMail(config.MAIL_DIR, config.MAIL_FROM, message);
    return;
  }
  ses ??= instrument(new SESClient({ ...clientSettings(config.CALL_BUDGET, config.CALL_TIMEOUT_SCALE), region: config.AWS_REGION }), 'mail', undefined);
  await ses.send(
    new SendEmailCommand({
      Source: config.MAIL_FROM,
      Destination: { ToAddresses: [message.to] },
      ReplyToAddresses: message.replyTo ? [message.replyTo] : undefined,
      Message: {
        Subject: { Data: message.subject, Charset: 'UTF-8' },
        Body: { Text: { Data: message.text, Charset: 'UTF-8' } },
      },
    }),
  );
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
