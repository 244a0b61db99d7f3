import { isChatError, realmAddress } from '@chat/protocol';
import {
  emailChangedMail,
  emailChangeLink,
  emailChangeMail,
  hashKey,
  KEY_PATTERN,
  mailerOf,
  newKey,
} from '../invitations/confirmations.js';
import type { CallerContext } from '../context.js';
import type { RawContext, RawDeps } from '../uploads/downloads.js';
import type { ApiOptions } from '../options.js';
import { paragraph, renderPage } from '../invitations/pages.js';

/**
 * `PATCH /settings` with `email`: nothing changes yet. A link goes to the
 * new address, and only following it (proof the caller receives mail
 * there) changes the account, in `confirmEmailPage`.
 */
export async function startEmailChange(caller: CallerContext, email: string, options: ApiOptions): Promise<void> {
  const mailer = mailerOf(options);
  const { key, hash } = newKey();
  const started = await caller.actors.ask(caller.realm, {
    type: 'realm.requestEmailChange',
    user_id: caller.principal.user_id,
    new_email: email,
    key_hash: hash,
  });
  if (!started.started) return;
  const to = email.trim();
  await mailer.send(emailChangeMail(to, started.old_email!, started.realm_name!, emailChangeLink(options, key)));
}

const EXPIRED = 'Whoops. The confirmation link has expired or been deactivated.';

export async function confirmEmailPage(ctx: RawContext, deps: RawDeps, key: string): Promise<void> {
  const realm = deps.options.realmOf({ host: ctx.host, ip: ctx.ip, userAgent: ctx.get('User-Agent') });
  const changed = KEY_PATTERN.test(key)
    ? await deps.actors
        .ask(
          realmAddress(realm),
          { type: 'realm.confirmEmailChange', key_hash: hashKey(key) },
          { requestId: ctx.state.requestId },
        )
        .catch((err: unknown) => {
          if (isChatError(err) && err.code === 'BAD_REQUEST') return err.message;
          throw err;
        })
    : EXPIRED;
  if (typeof changed === 'string') {
    // An unknown or expired link is not there; a link refused for what it asks is a bad request.
    return renderPage(ctx, changed === EXPIRED ? 404 : 400, 'Invalid link', paragraph(changed));
  }
  // The old address hears of the change, in case someone else made it.
  await mailerOf(deps.options)
    .send(emailChangedMail(changed.old_email, changed.new_email, changed.realm_name))
    .catch((err: unknown) => ctx.state.log.error({ err }, 'email change notice not mailed'));
  const text = `Your email address has been changed from ${changed.old_email} to ${changed.new_email}.`;
  renderPage(ctx, 200, 'Email address changed', paragraph(text));
}
