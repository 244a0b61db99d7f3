import { nextEdge } from './edges.js';
import { fetchWithHost } from './host-fetch.js';

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
    /** The `Host` header to send instead of the URL's: it picks the realm (`other.<host>` is realm `other`). */
    readonly host?: string,
  ) {}

  as(credentials: Credentials | undefined): ChatClient {
    return new ChatClient(this.baseUrl, credentials, this.host);
  }

  /** The same client speaking to the realm whose subdomain is `subdomain` (`Host: <subdomain>.<host:port>`). */
  inRealm(subdomain: string): ChatClient {
    return new ChatClient(this.baseUrl, this.credentials, `${subdomain}.${new URL(this.baseUrl).host}`);
  }

  private send(target: string, init: RequestInit): Promise<Response> {
    const url = nextEdge(target);
    return this.host === undefined ? fetch(url, init) : fetchWithHost(url, init, this.host);
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
  put<T = Record<string, unknown>>(path: string, params: Params = {}): Promise<Reply<T>> {
    return this.call('PUT', path, params);
  }
  delete<T = Record<string, unknown>>(path: string, params: Params = {}): Promise<Reply<T>> {
    return this.call('DELETE', path, params);
  }

  /** A multipart POST carrying files, as upload clients send it; `path` as in `call`. */
  async upload<T = Record<string, unknown>>(path: string, files: UploadPart[], params: Params = {}): Promise<Reply<T>> {
    const form = new FormData();
    for (const [name, value] of encodeParams(params)) form.set(name, value);
    for (const file of files) {
      const blob = new Blob([file.data], file.type !== undefined ? { type: file.type } : {});
      form.append(file.field ?? 'filename', blob, file.name);
    }
    const response = await this.fetch('POST', path, { body: form });
    return { status: response.status, headers: response.headers, body: await jsonBody<T>('POST', path, response) };
  }

  /** The raw response, for routes that answer bytes (downloads); credentials as in `call`. */
  fetch(method: string, path: string, init: RequestInit = {}): Promise<Response> {
    const headers: Record<string, string> = { ...(init.headers as Record<string, string> | undefined) };
    if (this.credentials) {
      const token = Buffer.from(`${this.credentials.email}:${this.credentials.apiKey}`).toString('base64');
      headers.authorization = `Basic ${token}`;
    }
    return this.send(this.urlOf(path), { ...init, method, headers });
  }

  /** `path` relative to /api/v1, or to the root when it starts with `//`. */
  urlOf(path: string): string {
    return path.startsWith('//') ? `${this.baseUrl}${path.slice(1)}` : `${this.baseUrl}/api/v1${path}`;
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
    const response = await this.send(url, init);
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

/** One file of a multipart upload; Zulip clients name the field `filename`. */
export interface UploadPart {
  field?: string;
  name: string;
  type?: string;
  data: Uint8Array;
}

async function jsonBody<T>(method: string, path: string, response: Response): Promise<Reply<T>['body']> {
  const text = await response.text();
  try {
    return JSON.parse(text) as Reply<T>['body'];
  } catch {
    throw new Error(`${method} ${path}: ${response.status} with a body that is not JSON: ${text.slice(0, 200)}`);
  }
}
