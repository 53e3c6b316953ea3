import { mkdir, rename, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import nodemailer from 'nodemailer';
import type { Config } from '../../config.js';
import { newId } from '../ids.js';
import type { MailMessage, Mailer } from './types.js';

export type { MailMessage, Mailer } from './types.js';

const FROM = 'Plinth <no-reply@plinth.local>';

/** SMTP when SMTP_URL is set; otherwise each message is an .eml file in PLINTH_DATA_DIR/outbox. */
export function createMailer(config: Readonly<Config>): Mailer {
  return config.smtpUrl ? smtpMailer(config.smtpUrl) : outboxMailer(join(config.dataDir, 'outbox'));
}

function smtpMailer(url: string): Mailer {
  const transport = nodemailer.createTransport(url);
  return {
    kind: 'smtp',
    async send(m: MailMessage) {
      await transport.sendMail({ from: FROM, to: m.to, subject: m.subject, text: m.text, html: m.html });
    },
    async close() {
      transport.close();
    },
  };
}

function outboxMailer(dir: string): Mailer {
  const builder = nodemailer.createTransport({ streamTransport: true, buffer: true, newline: 'unix' });
  return {
    kind: 'outbox',
    async send(m: MailMessage) {
      const info = await builder.sendMail({ from: FROM, to: m.to, subject: m.subject, text: m.text, html: m.html });
      // Messages carry download links and addresses: the owner's only.
      await mkdir(dir, { recursive: true, mode: 0o700 });
      const name = `${newId('job').slice(4)}.eml`;
      // Written then renamed, so a reader of the outbox never sees half a message.
      await writeFile(join(dir, `.${name}.tmp`), info.message as Buffer, { mode: 0o600 });
      await rename(join(dir, `.${name}.tmp`), join(dir, name));
    },
    async close() {},
  };
}
