import { Type } from '@sinclair/typebox';
import { defineRoute, type Route } from '@chat/edge';
import { ChatError, isRole, ROLES } from '@chat/protocol';
import { invitationMail, joinLink, mailerOf, newKey } from './confirmations.js';
import { CallerContext } from '../context.js';
import { requireMember } from '../groups/reads.js';
import { checkChannels, parseInvitees } from './checks.js';
import type { ApiOptions } from '../options.js';

/** The original's limit on `welcome_message_custom_text`. */
export const MAX_WELCOME_TEXT = 8000;

/** An invitation's own welcome text (null: the organization's), refused past the original's limit. */
export function welcomeText(text: string | null | undefined): string | null {
  if (text != null && [...text].length > MAX_WELCOME_TEXT) {
    throw new ChatError(
      'BAD_REQUEST',
      `welcome_message_custom_text is too long (limit: ${MAX_WELCOME_TEXT} characters)`,
    );
  }
  return text ?? null;
}
export const DEFAULT_VALIDITY_MINUTES = 14_400;

const realmName = async (caller: CallerContext) => (await caller.actors.ask(caller.realm, { type: 'realm.info' })).name;

const InviteList = Type.Object({
  invites: Type.Array(
    Type.Object({
      id: Type.Integer(),
      invited_by_user_id: Type.Integer(),
      invited: Type.Integer(),
      expiry_date: Type.Union([Type.Integer(), Type.Null()]),
      invited_as: Type.Integer(),
      email: Type.Optional(Type.String({ description: 'Absent for a reusable link.' })),
      notify_referrer_on_join: Type.Optional(Type.Boolean({ description: 'Absent for a reusable link.' })),
      is_multiuse: Type.Boolean(),
      link_url: Type.Optional(Type.String({ description: 'The reusable link; absent for an e-mail invitation.' })),
    }),
  ),
});

/** E-mail invitations: operation 8 and the lifecycle around it. */
export function inviteRoutes(options: ApiOptions): Route[] {
  return [
    defineRoute({
      method: 'POST',
      path: '/invites',
      auth: 'required',
      params: Type.Object({
        invitee_emails: Type.String({ description: 'Addresses separated by commas or newlines.' }),
        invite_expires_in_minutes: Type.Optional(
          Type.Union([Type.Integer({ minimum: 0 }), Type.Null()], { description: 'null: never expires.' }),
        ),
        invite_as: Type.Optional(Type.Integer({ default: ROLES.member, description: 'Role of the new user.' })),
        stream_ids: Type.Array(Type.Integer(), { description: 'Channels to subscribe the new user to.' }),
        group_ids: Type.Optional(Type.Array(Type.Integer(), { description: 'User groups to add the new user to.' })),
        include_realm_default_subscriptions: Type.Optional(Type.Boolean({ default: false })),
        notify_referrer_on_join: Type.Optional(Type.Boolean({ default: true })),
        welcome_message_custom_text: Type.Optional(
          Type.Union([Type.String(), Type.Null()], {
            description: 'Administrators only; null: the organization default.',
          }),
        ),
      }),
      summary: 'Send invitations',
      description: 'Mails each address a link that creates an account with the given role, channels and groups.',
      tags: ['invites'],
      async handler({ params, principal, actors, log }) {
        // Every invitation operation is the original's require_member_or_admin: not for guests or bots.
        requireMember(principal);
        const caller = new CallerContext(actors, principal);
        const mailer = mailerOf(options);
        const role = params.invite_as ?? ROLES.member;
        if (!isRole(role)) throw new ChatError('BAD_REQUEST', 'Invalid invite_as');
        const welcome = welcomeText(params.welcome_message_custom_text);
        const emails = parseInvitees(params.invitee_emails);
        const keys = emails.map((email) => ({ email, ...newKey() }));
        const minutes = params.invite_expires_in_minutes;
        const result = await actors.ask(caller.realm, {
          type: 'realm.invite',
          inviter: principal,
          invitees: keys.map((k) => ({ email: k.email, key_hash: k.hash })),
          options: {
            role,
            stream_ids: params.stream_ids,
            group_ids: params.group_ids ?? [],
            include_realm_default_subscriptions: params.include_realm_default_subscriptions ?? false,
            notify_referrer_on_join: params.notify_referrer_on_join ?? true,
            welcome_message_custom_text: welcome,
            expires_in_minutes:
              minutes === undefined ? (options.invitationValidityMinutes ?? DEFAULT_VALIDITY_MINUTES) : minutes,
          },
          channels: await checkChannels(caller, params.stream_ids),
        });
        const name = await realmName(caller);
        for (const invited of result.invited) {
          const key = keys.find((k) => k.hash === invited.key_hash)!.key;
          const facts = { to: invited.email, referrer: principal.full_name, realmName: name };
          const mail = invitationMail(
            { ...facts, link: joinLink(options, key), expiresAt: invited.expiry_date },
            options,
          );
          // The invitation stands even if this mail fails: it can be resent.
          await mailer
            .send(mail)
            .catch((err: unknown) => log.error({ err, invite: invited.id }, 'invitation not mailed'));
        }
        if (result.skipped.length > 0) {
          throw new ChatError(
            'INVITATION_FAILED',
            "Some of those addresses are already using Zulip, so we didn't send them an invitation. We did send invitations to everyone else!",
            {
              errors: result.skipped,
              sent_invitations: true,
              license_limit_reached: false,
              daily_limit_reached: false,
            },
          );
        }
      },
    }),
    defineRoute({
      method: 'GET',
      path: '/invites',
      auth: 'required',
      params: Type.Object({}),
      summary: 'Get all invitations',
      description:
        'Unexpired invitations and live reusable links the caller may manage: administrators see all, others their own.',
      tags: ['invites'],
      response: InviteList,
      async handler({ principal, actors }) {
        requireMember(principal);
        const caller = new CallerContext(actors, principal);
        const listed = await actors.ask(caller.realm, { type: 'realm.invites', viewer: principal });
        const invites = listed.map((invite) => {
          if (!invite.is_multiuse) return invite;
          const { link_key, ...rest } = invite;
          return { ...rest, link_url: joinLink(options, link_key) };
        });
        return { invites };
      },
    }),
    defineRoute({
      method: 'DELETE',
      path: '/invites/{invite_id}',
      auth: 'required',
      params: Type.Object({ invite_id: Type.Integer({ description: 'The invitation to revoke.' }) }),
      summary: 'Revoke an email invitation',
      description: 'The invitation link stops working.',
      tags: ['invites'],
      async handler({ params, principal, actors }) {
        requireMember(principal);
        const caller = new CallerContext(actors, principal);
        await actors.ask(caller.realm, { type: 'realm.revokeInvite', actor: principal, invite_id: params.invite_id });
      },
    }),
    defineRoute({
      method: 'POST',
      path: '/invites/{invite_id}/resend',
      auth: 'required',
      params: Type.Object({ invite_id: Type.Integer({ description: 'The invitation to resend.' }) }),
      summary: 'Resend an email invitation',
      description: 'Mails a new link, valid as long as the first one was; the old link stops working.',
      tags: ['invites'],
      async handler({ params, principal, actors }) {
        requireMember(principal);
        const caller = new CallerContext(actors, principal);
        const { key, hash } = newKey();
        const resent = await actors.ask(caller.realm, {
          type: 'realm.resendInvite',
          actor: principal,
          invite_id: params.invite_id,
          key_hash: hash,
        });
        const facts = { to: resent.email, referrer: resent.referrer_name, realmName: await realmName(caller) };
        const mail = invitationMail({ ...facts, link: joinLink(options, key), expiresAt: resent.expiry_date }, options);
        await mailerOf(options).send(mail);
      },
    }),
  ];
}
