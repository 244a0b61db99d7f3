import http from 'node:http';
import { performance } from 'node:perf_hooks';

export interface Credentials {
  email: string;
  apiKey: string;
}

export interface Answer {
  /** 0 when the request failed before an HTTP status (refused, reset, timed out). */
  status: number;
  body: Record<string, unknown>;
  /** performance.now() when the whole body had arrived. */
  end: number;
  bytes: number;
}

/**
 * The harness's HTTP client: node:http over one keep-alive agent with no
 * socket limit, so that thousands of long polls and a burst of sends each get
 * a connection and no request waits for a free socket inside the harness
 * (which would hide server latency). Bodies are forms, as Zulip clients send.
 */
export class Http {
  private readonly agent = new http.Agent({ keepAlive: true, maxSockets: Infinity, maxFreeSockets: 4096 });
  private readonly host: string;
  private readonly port: number;
  private readonly prefix: string;

  constructor(readonly baseUrl: string) {
    const url = new URL(baseUrl);
    if (url.protocol !== 'http:') throw new Error(`only http:// targets are supported, got ${baseUrl}`);
    this.host = url.hostname;
    this.port = Number(url.port || 80);
    this.prefix = url.pathname.replace(/\/$/, '');
  }

  /** `path` is relative to /api/v1; lists and objects are JSON inside a form field. */
  request(
    method: string,
    path: string,
    params: Record<string, unknown>,
    credentials?: Credentials,
    timeoutMs = 30_000,
  ): Promise<Answer> {
    const form = new URLSearchParams();
    for (const [name, value] of Object.entries(params)) {
      if (value !== undefined) form.set(name, typeof value === 'string' ? value : JSON.stringify(value));
    }
    const inQuery = method === 'GET' || method === 'DELETE';
    const query = inQuery && form.size > 0 ? `?${form}` : '';
    const body = inQuery ? undefined : Buffer.from(form.toString());
    const headers: Record<string, string | number> = {};
    if (credentials) {
      headers.authorization = `Basic ${Buffer.from(`${credentials.email}:${credentials.apiKey}`).toString('base64')}`;
    }
    if (body) {
      headers['content-type'] = 'application/x-www-form-urlencoded';
      headers['content-length'] = body.length;
    }
    return new Promise((resolve) => {
      const failed = (error: Error) =>
        resolve({ status: 0, body: { result: 'error', msg: error.message }, end: performance.now(), bytes: 0 });
      const req = http.request(
        {
          agent: this.agent,
          host: this.host,
          port: this.port,
          method,
          path: `${this.prefix}/api/v1${path}${query}`,
          headers,
        },
        (res) => {
          const chunks: Buffer[] = [];
          res.on('data', (chunk: Buffer) => chunks.push(chunk));
          res.on('error', failed);
          res.on('end', () => {
            const end = performance.now();
            const raw = Buffer.concat(chunks);
            let parsed: Record<string, unknown>;
            try {
              parsed = JSON.parse(raw.toString()) as Record<string, unknown>;
            } catch {
              parsed = { result: 'error', msg: `not JSON: ${raw.toString().slice(0, 200)}` };
            }
            resolve({ status: res.statusCode ?? 0, body: parsed, end, bytes: raw.length });
          });
        },
      );
      req.setTimeout(timeoutMs, () => req.destroy(new Error(`timed out after ${timeoutMs} ms`)));
      req.on('error', failed);
      req.end(body);
    });
  }

  /** Like request, but throws on anything but 200: for setup steps, where a failure ends the run. */
  async must(method: string, path: string, params: Record<string, unknown>, credentials?: Credentials) {
    const answer = await this.request(method, path, params, credentials, 120_000);
    if (answer.status !== 200) {
      throw new Error(`${method} ${path}: ${answer.status} ${JSON.stringify(answer.body).slice(0, 300)}`);
    }
    return answer.body;
  }

  /** Closes every socket, waiting long polls included; their requests answer status 0. */
  close(): void {
    this.agent.destroy();
  }
}
