/**
 * A client of the Zulip API as real clients speak it: basic auth, form
 * bodies, lists and objects JSON-encoded inside a form field.
 */
export type Params = Record<string, unknown>;

export interface Reply<T = Record<string, unknown>> {
  status: number;
  headers: Headers;
  body: T & { result: string; msg: string; code?: string };
}

export interface Credentials {
  email: string;
  apiKey: string;
}

function encodeParams(params: Params): URLSearchParams {
  const form = new URLSearchParams();
  for (const [name, value] of Object.entries(params)) {
    if (value === undefined) continue;
    form.set(name, typeof value === 'string' ? value : JSON.stringify(value));
  }
  return form;
}

export class ChatClient {
  constructor(
    readonly baseUrl: string,
    readonly credentials?: Credentials,
  ) {}

  as(credentials: Credentials | undefined): ChatClient {
    return new ChatClient(this.baseUrl, credentials);
  }

  get<T = Record<string, unknown>>(path: string, params: Params = {}): Promise<Reply<T>> {
    return this.call('GET', path, params);
  }
  post<T = Record<string, unknown>>(path: string, params: Params = {}): Promise<Reply<T>> {
    return this.call('POST', path, params);
  }
  patch<T = Record<string, unknown>>(path: string, params: Params = {}): Promise<Reply<T>> {
    return this.call('PATCH', path, params);
  }
  delete<T = Record<string, unknown>>(path: string, params: Params = {}): Promise<Reply<T>> {
    return this.call('DELETE', path, params);
  }

  /** `path` is relative to /api/v1 unless it starts with `//` (then relative to the root). */
  async call<T>(method: string, path: string, params: Params = {}, headers: Record<string, string> = {}) {
    const form = encodeParams(params);
    const inQuery = method === 'GET' || method === 'DELETE';
    const base = path.startsWith('//') ? `${this.baseUrl}${path.slice(1)}` : `${this.baseUrl}/api/v1${path}`;
    const url = inQuery && [...form].length > 0 ? `${base}?${form}` : base;
    const init: RequestInit = { method, headers: { ...headers } };
    if (this.credentials) {
      const token = Buffer.from(`${this.credentials.email}:${this.credentials.apiKey}`).toString('base64');
      (init.headers as Record<string, string>).authorization = `Basic ${token}`;
    }
    if (!inQuery) init.body = form;
    const response = await fetch(url, init);
    const text = await response.text();
    let body: Reply<T>['body'];
    try {
      body = JSON.parse(text) as Reply<T>['body'];
    } catch {
      throw new Error(`${method} ${path}: ${response.status} with a body that is not JSON: ${text.slice(0, 200)}`);
    }
    return { status: response.status, headers: response.headers, body } satisfies Reply<T>;
  }
}
