/** A small client that speaks to the edge as Zulip clients do. */

type Body = NonNullable<Parameters<typeof fetch>[1]>['body'];

export interface Reply {
  status: number;
  headers: Headers;
  text: string;
  body: Record<string, unknown>;
}

export interface CallOptions {
  auth?: string;
  /** Sent form-encoded, as Zulip clients send parameters. */
  form?: Record<string, string>;
  query?: Record<string, string>;
  json?: unknown;
  body?: Body;
  headers?: Record<string, string>;
}

export async function call(baseUrl: string, method: string, path: string, options: CallOptions = {}): Promise<Reply> {
  const url = new URL(path, baseUrl);
  for (const [name, value] of Object.entries(options.query ?? {})) url.searchParams.append(name, value);
  const headers: Record<string, string> = { ...options.headers };
  if (options.auth) headers['Authorization'] = options.auth;
  let body: Body | undefined = options.body;
  if (options.form) {
    body = new URLSearchParams(options.form).toString();
    headers['Content-Type'] = 'application/x-www-form-urlencoded';
  }
  if (options.json !== undefined) {
    body = JSON.stringify(options.json);
    headers['Content-Type'] = 'application/json';
  }
  const response = await fetch(url, { method, headers, ...(body === undefined ? {} : { body }) });
  const text = await response.text();
  let parsed: Record<string, unknown> = {};
  if (response.headers.get('content-type')?.startsWith('application/json')) {
    parsed = JSON.parse(text) as Record<string, unknown>;
  }
  return { status: response.status, headers: response.headers, text, body: parsed };
}
