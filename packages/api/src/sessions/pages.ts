import { checkCsrf, CSRF_COOKIE, CSRF_HEADER, maskCsrfSecret, parseCookies, type RequestLimits } from '@chat/edge';
import { ChatError, DECOY_PASSWORD_HASH, isChatError, realmAddress, verifyPassword } from '@chat/protocol';
import { escapeHtml, paragraph, readForm, renderPage } from '../invitations/pages.js';
import type { RawContext, RawDeps, RawMiddleware } from '../uploads/downloads.js';
import { csrfCookie, endSession, startSession } from './sessions.js';

/** What the login pages need besides the raw deps: the password attempt limits of the request, if any. */
export interface SessionPageDeps extends RawDeps {
  loginLimits?: (ctx: RawContext) => RequestLimits;
}

const WRONG = 'Please enter a correct email and password. Note that both fields may be case-sensitive.';

/**
 * The original's browser logins, which start a session: `/accounts/login/`
 * (e-mail and password), `/accounts/logout/`, and in development
 * `/devlogin/`, whose buttons post to `/accounts/login/local/`. Every form
 * carries the CSRF token of the `csrftoken` cookie, checked as the
 * original's framework checks it (403 "CSRF verification failed").
 */
export function sessionPages(deps: SessionPageDeps): RawMiddleware {
  const development = deps.options.mode === 'development';
  return async (ctx, next) => {
    const path = ctx.path;
    if (path === '/accounts/login/' && (ctx.method === 'GET' || ctx.method === 'POST')) {
      ctx.state.route = path;
      return ctx.method === 'GET' ? loginForm(ctx, deps, 200) : passwordLogin(ctx, deps);
    }
    if (path === '/accounts/logout/' && ctx.method === 'POST') {
      ctx.state.route = path;
      return logout(ctx, deps);
    }
    if (development && path === '/devlogin/' && ctx.method === 'GET') {
      ctx.state.route = path;
      return devLoginPage(ctx, deps);
    }
    if (development && path === '/accounts/login/local/' && ctx.method === 'POST') {
      ctx.state.route = path;
      return devLogin(ctx, deps);
    }
    return next();
  };
}

const realmOf = (ctx: RawContext, deps: RawDeps) =>
  deps.options.realmOf({ host: ctx.host, ip: ctx.ip, userAgent: ctx.get('User-Agent') });

/** The form's token field, with a CSRF cookie set when the browser has none. */
function tokenField(ctx: RawContext, deps: RawDeps): string {
  const { secret, header } = csrfCookie(deps.options, ctx.get('Cookie') || undefined);
  if (header) ctx.append('Set-Cookie', header);
  return `<input type="hidden" name="csrfmiddlewaretoken" value="${maskCsrfSecret(secret)}">`;
}

/** The form (or header) token against the cookie; false after answering 403 as the original's framework does. */
async function formWithCsrf(ctx: RawContext): Promise<URLSearchParams | undefined> {
  const form = await readForm(ctx.req);
  const cookie = parseCookies(ctx.get('Cookie') || undefined).get(CSRF_COOKIE);
  const field = form.get('csrfmiddlewaretoken') ?? undefined;
  try {
    if (field !== undefined) checkCsrf(cookie, field, 'POST');
    else checkCsrf(cookie, ctx.get(CSRF_HEADER) || undefined, 'header');
  } catch (err) {
    if (!isChatError(err) || err.code !== 'CSRF_FAILED') throw err;
    renderPage(ctx, 403, 'Forbidden (403)', paragraph('CSRF verification failed. Request aborted.'));
    return undefined;
  }
  return form;
}

function loginForm(ctx: RawContext, deps: RawDeps, status: number, error?: string, username = ''): void {
  const body = `${error ? `<p role="alert"><strong>${escapeHtml(error)}</strong></p>` : ''}
<form method="post" action="/accounts/login/">
${tokenField(ctx, deps)}
<p><label>Email <input name="username" type="email" required value="${escapeHtml(username)}"></label></p>
<p><label>Password <input name="password" type="password" required></label></p>
<p><button type="submit">Log in</button></p>
</form>`;
  renderPage(ctx, status, 'Log in', body);
}

function loggedIn(ctx: RawContext, cookies: string[], to = '/'): void {
  for (const cookie of cookies) ctx.append('Set-Cookie', cookie);
  ctx.status = 302;
  ctx.set('Location', to);
  ctx.set('Cache-Control', 'no-store');
  ctx.body = '';
}

async function passwordLogin(ctx: RawContext, deps: SessionPageDeps): Promise<void> {
  const form = await formWithCsrf(ctx);
  if (!form) return;
  const username = form.get('username') ?? '';
  const password = form.get('password') ?? '';
  const realm = realmOf(ctx, deps);
  // The same count as POST /fetch_api_key: attempts per username.
  const limits = deps.loginLimits?.(ctx);
  const counted = `${realm}:${username.toLowerCase()}`;
  await limits?.loginAttempt(counted);
  const candidate = await deps.actors
    .ask(
      realmAddress(realm),
      { type: 'realm.loginCandidate', username, login: true },
      { requestId: ctx.state.requestId },
    )
    .catch((err: unknown) => {
      if (isChatError(err) && (err.code === 'AUTHENTICATION_FAILED' || err.code === 'USER_DEACTIVATED'))
        return undefined;
      if (isChatError(err) && err.code === 'PASSWORD_AUTH_DISABLED') return err.message;
      throw err;
    });
  if (typeof candidate === 'string') return loginForm(ctx, deps, 200, candidate, username);
  const ok = await verifyPassword(password, candidate?.password_hash ?? DECOY_PASSWORD_HASH);
  if (!candidate || !ok || candidate.password_hash === null) return loginForm(ctx, deps, 200, WRONG, username);
  await limits?.loginSucceeded(counted);
  loggedIn(ctx, await startSession(deps.options, deps.actors, realm, candidate.user_id));
}

async function logout(ctx: RawContext, deps: RawDeps): Promise<void> {
  const form = await formWithCsrf(ctx);
  if (!form) return;
  const cleared = await endSession(deps.options, deps.actors, realmOf(ctx, deps), ctx.get('Cookie') || undefined);
  loggedIn(ctx, [cleared], '/accounts/login/');
}

async function devLoginPage(ctx: RawContext, deps: RawDeps): Promise<void> {
  const users = await deps.actors.ask(realmAddress(realmOf(ctx, deps)), { type: 'realm.listUsers' });
  const token = tokenField(ctx, deps);
  const buttons = users
    .filter((u) => u.is_active && !u.is_bot)
    .map(
      (u) => `<form method="post" action="/accounts/login/local/">${token}
<input type="hidden" name="direct_email" value="${escapeHtml(u.delivery_email)}"><button type="submit">${escapeHtml(u.full_name)} (${escapeHtml(u.delivery_email)})</button></form>`,
    )
    .join('\n');
  renderPage(ctx, 200, 'Log in (development)', buttons);
}

async function devLogin(ctx: RawContext, deps: RawDeps): Promise<void> {
  const form = await formWithCsrf(ctx);
  if (!form) return;
  const realm = realmOf(ctx, deps);
  const grant = await deps.actors
    .ask(realmAddress(realm), { type: 'realm.devApiKey', username: form.get('direct_email') ?? '' })
    .catch((err: unknown) => {
      if (isChatError(err)) return undefined;
      throw err;
    });
  if (!grant) throw new ChatError('BAD_REQUEST', 'Invalid development login');
  loggedIn(ctx, await startSession(deps.options, deps.actors, realm, grant.user_id));
}
