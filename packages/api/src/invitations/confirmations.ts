import { createHash, randomBytes } from 'node:crypto';
import { ChatError } from '@chat/protocol';
import type { Mail, Mailer } from '../ports/mailer.js';
import type { ApiOptions } from '../options.js';

/**
 * Confirmation links: a random key goes into the mail, only its hash to the
 * RealmActor, so a link works only for whoever received the mail.
 */
export function newKey(): { key: string; hash: string } {
  // 24 characters of base32, like the original's keys: safe in any URL and mail client.
  const alphabet = 'abcdefghijklmnopqrstuvwxyz234567';
  const key = [...randomBytes(24)].map((b) => alphabet[b % 32]).join('');
  return { key, hash: hashKey(key) };
}

export const hashKey = (key: string) => createHash('sha256').update(key).digest('hex');

/** Keys as `newKey` makes them; anything else cannot name a confirmation. */
export const KEY_PATTERN = /^[a-z2-7]{24}$/;

export const joinLink = (options: ApiOptions, key: string) => `${options.externalUrl}/join/${key}/`;
export const emailChangeLink = (options: ApiOptions, key: string) =>
  `${options.externalUrl}/accounts/confirm_new_email/${key}/`;

export function mailerOf(options: ApiOptions): Mailer {
  if (!options.mailer) throw new ChatError('INTERNAL_SERVER_ERROR', 'Outgoing e-mail is not configured');
  return options.mailer;
}

const expiry = (at: number | null) =>
  at === null ? 'This link does not expire.' : `This link expires on ${new Date(at * 1000).toUTCString()}.`;

export interface InvitationFacts {
  to: string;
  referrer: string;
  realmName: string;
  link: string;
  expiresAt: number | null;
}

export function invitationMail(facts: InvitationFacts, options: ApiOptions): Mail {
  return {
    to: facts.to,
    subject: `${facts.referrer} invited you to join ${facts.realmName}`,
    text: [
      'Hi,',
      '',
      `${facts.referrer} invited you to join ${facts.realmName}, a team chat at ${options.externalUrl}.`,
      '',
      'To accept, open this link and choose your name and password:',
      '',
      facts.link,
      '',
      expiry(facts.expiresAt),
    ].join('\n'),
  };
}

export function emailChangeMail(to: string, oldEmail: string, realmName: string, link: string): Mail {
  return {
    to,
    subject: `Verify your new email address for ${realmName}`,
    text: [
      'Hi,',
      '',
      `We received a request to change the email address of the account ${oldEmail} in ${realmName} to ${to}.`,
      'To confirm the change, open this link:',
      '',
      link,
      '',
      'If you did not ask for this, ignore this mail: nothing changes until the link is opened.',
    ].join('\n'),
  };
}

/** Sent to the old address once the change is done, so its owner learns about it. */
export function emailChangedMail(oldEmail: string, newEmail: string, realmName: string): Mail {
  return {
    to: oldEmail,
    subject: `Email address changed for ${realmName}`,
    text: `Hi,\n\nThe email address of your account in ${realmName} was changed from ${oldEmail} to ${newEmail}.`,
  };
}

/** The notice a deactivated user gets when the administrator asks for one, with their comment if any. */
export function deactivationMail(to: string, realmName: string, realmUrl: string, comment: string): Mail {
  const lines = [`Your account on ${realmUrl} has been deactivated, and you will no longer be able to log in.`];
  if (comment !== '') lines.push('', 'The administrators provided the following comment:', '', comment);
  return { to, subject: `Notification of account deactivation on ${realmName}`, text: lines.join('\n') };
}
