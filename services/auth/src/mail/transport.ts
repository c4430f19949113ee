/** One sign-in mail. */
export interface MailMessage {
  to: string;
  subject: string;
  text: string;
  /** The magic-link token, kept machine-readable by the outbox transport (scripts and tests read it). */
  token: string;
}

/** Where sign-in mail goes (a port): real SMTP, or JSON files in an outbox directory. */
export interface MailTransport {
  readonly kind: 'outbox' | 'smtp';
  send(message: MailMessage): Promise<void>;
}
