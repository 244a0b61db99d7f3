import type { ChatClient } from '@chat/testkit';

/**
 * A browser's side of sessions: it keeps the cookies the server sets and
 * sends them back, posts forms, and calls the /json operations as the
 * original's web app does (the CSRF token in `X-CSRFToken`). Requests go
 * through `client`, so in a cluster they alternate edges.
 */
export class Browser {
  readonly cookies = new Map<string, string>();
  /** Every `Set-Cookie` received, for tests of their attributes. */
  readonly setCookies: string[] = [];

  constructor(private readonly client: ChatClient) {}

  private cookieHeader(): Record<string, string> {
    const cookies = [...this.cookies].map(([name, value]) => `${name}=${value}`).join('; ');
    return cookies ? { cookie: cookies } : {};
  }

  /** A request to `path` (from the root), keeping what it sets. */
  async send(method: string, path: string, body?: Record<string, string>, headers: Record<string, string> = {}) {
    const init: RequestInit = { headers: { ...this.cookieHeader(), ...headers }, redirect: 'manual' };
    if (body) init.body = new URLSearchParams(body);
    const response = await this.client.fetch(method, `/${path}`, init);
    for (const cookie of response.headers.getSetCookie()) {
      this.setCookies.push(cookie);
      const [pair] = cookie.split(';');
      const eq = pair!.indexOf('=');
      const [name, value] = [pair!.slice(0, eq), pair!.slice(eq + 1)];
      if (/Max-Age=0/.test(cookie)) this.cookies.delete(name);
      else this.cookies.set(name, value);
    }
    return { status: response.status, headers: response.headers, text: await response.text() };
  }

  /** The hidden CSRF field of the last page with a form. */
  static formToken(html: string): string {
    const token = /name="csrfmiddlewaretoken" value="([^"]+)"/.exec(html)?.[1];
    if (!token) throw new Error('no CSRF field on the page');
    return token;
  }

  /** Logs in through the login page with an e-mail and password. */
  async logIn(email: string, password: string) {
    const page = await this.send('GET', '/accounts/login/');
    const token = Browser.formToken(page.text);
    return this.send('POST', '/accounts/login/', { username: email, password, csrfmiddlewaretoken: token });
  }

  /** An operation under /json; writes carry the CSRF cookie's token unless `csrf` says otherwise. */
  async json(method: string, path: string, params: Record<string, string> = {}, csrf?: string | null) {
    const token = csrf === undefined ? this.cookies.get('csrftoken') : csrf;
    const headers: Record<string, string> = token ? { 'X-CSRFToken': token } : {};
    const query = method === 'GET' && Object.keys(params).length > 0 ? `?${new URLSearchParams(params)}` : '';
    const reply = await this.send(method, `/json${path}${query}`, method === 'GET' ? undefined : params, headers);
    return { status: reply.status, body: JSON.parse(reply.text) as Record<string, unknown> };
  }
}
