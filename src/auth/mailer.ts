// Sign-in and invite mails through nodemailer over SMTP_URL. Without SMTP_URL, in development
// only (PUBLIC_URL on localhost), each mail is written to the log instead; a node started that way
// says so once at start (src/node.ts).
import nodemailer, { type Transporter } from 'nodemailer'
import type { Logger } from '../shared/logger.js'

export interface Mail {
  to: string
  subject: string
  text: string
  /** The same mail as HTML, sent beside the text as multipart/alternative. */
  html?: string
}

/** The settings the mailer reads (src/config.ts has them all, with their environment names). */
export interface MailSettings {
  smtpUrl?: string | undefined
  mailFrom: string
  /** Unset or plain http: development, where mails go to the log when SMTP_URL is unset. */
  publicUrl?: string | undefined
}

export class Mailer {
  private readonly transport: Transporter | undefined

  constructor(
    private readonly settings: MailSettings,
    private readonly log: Logger,
  ) {
    if (settings.smtpUrl) this.transport = nodemailer.createTransport(settings.smtpUrl)
    else if (!isDevelopment(settings))
      throw new Error(
        'SMTP_URL is not set: sign-in mails cannot be sent (only with PUBLIC_URL on localhost are they ' +
          'written to the log)',
      )
  }

  /** True when mails are written to the log instead of sent. */
  get toLog(): boolean {
    return this.transport === undefined
  }

  async send(mail: Mail): Promise<void> {
    if (!this.transport) {
      this.log.info(
        { mail: { to: mail.to, subject: mail.subject, text: mail.text } },
        'mail (SMTP_URL not set; development only)',
      )
      return
    }
    await this.transport.sendMail({
      from: this.settings.mailFrom,
      to: mail.to,
      subject: mail.subject,
      text: mail.text,
      ...(mail.html !== undefined ? { html: mail.html } : {}),
    })
  }

  close(): void {
    this.transport?.close()
  }
}

/** Development: PUBLIC_URL unset or on localhost. */
export function isDevelopment(settings: Pick<MailSettings, 'publicUrl'>): boolean {
  return !settings.publicUrl || /^http:\/\//.test(settings.publicUrl)
}
