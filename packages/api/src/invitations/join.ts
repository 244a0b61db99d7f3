import { withOptions } from '@chat/runtime';
import { hashPassword, isChatError, realmAddress } from '@chat/protocol';
import { hashKey, KEY_PATTERN } from './confirmations.js';
import type { RawContext, RawDeps, RawMiddleware } from '../uploads/downloads.js';
import { confirmEmailPage } from '../users/email-change.js';
import { onboard } from './onboard.js';
import { escapeHtml, keyFromPath, paragraph, readForm, renderPage } from './pages.js';

/** The original's PASSWORD_MIN_LENGTH. */
const MIN_PASSWORD_LENGTH = 6;
const EXPIRED = 'Whoops. The confirmation link has expired or been deactivated.';

/** The realm's refusal (unknown or expired link) as undefined; real faults go on. */
function refused(err: unknown): undefined {
  if (isChatError(err) && err.code === 'BAD_REQUEST') return undefined;
  throw err;
}

interface InviteFacts {
  email: string;
  realm_name: string;
  referrer_name: string;
  /** A reusable link: the page asks for the address. */
  multiuse?: boolean;
}

function joinForm(
  ctx: RawContext,
  status: number,
  invite: InviteFacts,
  error?: string,
  fullName = '',
  email = '',
): void {
  const address = invite.multiuse
    ? `<p><label>Email <input name="email" type="email" required maxlength="254" value="${escapeHtml(email)}"></label></p>`
    : `<p>Email: <strong>${escapeHtml(invite.email)}</strong></p>`;
  const body = `${paragraph(`${invite.referrer_name} invited you to join ${invite.realm_name}.`)}
${error ? `<p role="alert"><strong>${escapeHtml(error)}</strong></p>` : ''}
<form method="post">
${address}
<p><label>Full name <input name="full_name" required maxlength="100" value="${escapeHtml(fullName)}"></label></p>
<p><label>Password <input name="password" type="password" required minlength="${MIN_PASSWORD_LENGTH}"></label></p>
<p><button type="submit">Create account</button></p>
</form>`;
  renderPage(ctx, status, `Join ${invite.realm_name}`, body);
}

async function join(ctx: RawContext, deps: RawDeps, key: string): Promise<void> {
  const realm = deps.options.realmOf({ host: ctx.host, ip: ctx.ip, userAgent: ctx.get('User-Agent') });
  const actors = withOptions(deps.actors, () => ({ requestId: ctx.state.requestId }));
  const to = realmAddress(realm);
  const keyHash = hashKey(key);
  const invite = KEY_PATTERN.test(key)
    ? await actors.ask(to, { type: 'realm.inviteByKey', key_hash: keyHash }).catch(refused)
    : undefined;
  if (!invite) return renderPage(ctx, 404, 'Invalid link', paragraph(EXPIRED));
  if (ctx.method === 'GET') return joinForm(ctx, 200, invite);
  const form = await readForm(ctx.req);
  const fullName = (form.get('full_name') ?? '').trim();
  const password = form.get('password') ?? '';
  const email = (form.get('email') ?? '').trim();
  const again = (error: string) => joinForm(ctx, 400, invite, error, fullName, email);
  if (fullName === '') return again('Please enter your full name.');
  if (invite.multiuse && email === '') return again('Please enter a valid email address.');
  if (password.length < MIN_PASSWORD_LENGTH) return again('The password is too weak.');
  const accepted = await actors
    .ask(to, {
      type: 'realm.acceptInvite',
      key_hash: keyHash,
      full_name: fullName,
      password_hash: await hashPassword(password),
      ...(invite.multiuse && { email }),
    })
    .catch((err: unknown) => {
      if (isChatError(err) && err.code === 'BAD_REQUEST') return err.message;
      throw err;
    });
  if (typeof accepted === 'string') return again(accepted);
  await onboard(deps.actors, realm, accepted, deps.options, ctx.state.log);
  const done = `${paragraph(`Your account ${accepted.user.email} in ${invite.realm_name} is ready.`)}
${paragraph('Log in with this email address and your new password from any Zulip app.')}
<p><a href="${escapeHtml(deps.options.externalUrl)}/">${escapeHtml(deps.options.externalUrl)}</a></p>`;
  renderPage(ctx, 200, `Welcome to ${invite.realm_name}`, done);
}

/**
 * The pages mailed links open, answered with HTML rather than envelopes:
 * `GET /join/{key}/` shows the form to accept an invitation, `POST` creates
 * the account; `GET /accounts/confirm_new_email/{key}/` confirms a new address.
 */
export function confirmationPages(deps: RawDeps): RawMiddleware {
  return async (ctx, next) => {
    const joinKey = keyFromPath(ctx.path, '/join/');
    if (joinKey !== undefined && (ctx.method === 'GET' || ctx.method === 'POST')) {
      ctx.state.route = '/join/{key}/';
      ctx.state.secretPath = true;
      return join(ctx, deps, joinKey);
    }
    const emailKey = keyFromPath(ctx.path, '/accounts/confirm_new_email/');
    if (emailKey !== undefined && ctx.method === 'GET') {
      ctx.state.route = '/accounts/confirm_new_email/{key}/';
      ctx.state.secretPath = true;
      return confirmEmailPage(ctx, deps, emailKey);
    }
    return next();
  };
}
