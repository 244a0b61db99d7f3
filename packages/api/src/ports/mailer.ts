/**
 * The outgoing-mail port. Operations that confirm an address (invitations,
 * e-mail changes) hand a plain-text mail to it; the server chooses the
 * adapter (SMTP, or an outbox folder in development).
 */
export interface Mail {
  to: string;
  subject: string;
  text: string;
}

export interface Mailer {
  send(mail: Mail): Promise<void>;
}
