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
  /** The Retry-After header of a refusal, when there was one. */
  retryAfter?: string;
}

/** The server refused the request for load (503) or a rate limit (429): it did not take it, and said so. */
export const isRefusal = (answer: Answer) => answer.status === 503 || answer.status === 429;

/** One server address: a whole server, or one edge of a cluster. */
interface Endpoint {
  host: string;
  port: number;
  prefix: string;
}

/**
 * The harness's HTTP client: node:http over one keep-alive agent with no
 * socket limit, so that thousands of long polls and a burst of sends each get
 * a connection and no request waits for a free socket inside the harness
 * (which would hide server latency). Bodies are forms, as Zulip clients send.
 * Given several base URLs (a cluster's edges), each user sticks to one of
 * them, as behind a load balancer, and the users are spread evenly.
 */
export class Http {
  private readonly agent = new http.Agent({ keepAlive: true, maxSockets: Infinity, maxFreeSockets: 4096 });
  private readonly endpoints: Endpoint[];
  private next = 0;
  readonly baseUrl: string;

  constructor(baseUrls: string | string[]) {
    const urls = typeof baseUrls === 'string' ? [baseUrls] : baseUrls;
    if (urls.length === 0) throw new Error('no base URL');
    this.baseUrl = urls[0]!;
    this.endpoints = urls.map((baseUrl) => {
      const url = new URL(baseUrl);
      if (url.protocol !== 'http:') throw new Error(`only http:// targets are supported, got ${baseUrl}`);
      return { host: url.hostname, port: Number(url.port || 80), prefix: url.pathname.replace(/\/$/, '') };
    });
  }

  /** The user's edge (bench users are numbered, so a hash of the address spreads them evenly); anonymous calls rotate. */
  private endpointFor(credentials: Credentials | undefined): Endpoint {
    const n = this.endpoints.length;
    if (n === 1) return this.endpoints[0]!;
    if (!credentials) return this.endpoints[this.next++ % n]!;
    let hash = 0;
    for (let i = 0; i < credentials.email.length; i++) hash = (hash * 31 + credentials.email.charCodeAt(i)) >>> 0;
    return this.endpoints[hash % n]!;
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
      const endpoint = this.endpointFor(credentials);
      const req = http.request(
        {
          agent: this.agent,
          host: endpoint.host,
          port: endpoint.port,
          method,
          path: `${endpoint.prefix}/api/v1${path}${query}`,
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
            const retryAfter = res.headers['retry-after'];
            resolve({
              status: res.statusCode ?? 0,
              body: parsed,
              end,
              bytes: raw.length,
              ...(retryAfter !== undefined ? { retryAfter } : {}),
            });
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
    let answer = await this.request(method, path, params, credentials, 120_000);
    // Refused for load (a busy machine while setting up): again after Retry-After, as Zulip's clients do.
    for (let tries = 1; tries < 10 && isRefusal(answer); tries++) {
      const seconds = Number(answer.retryAfter);
      await new Promise((resolve) =>
        setTimeout(resolve, (Number.isFinite(seconds) ? Math.min(seconds, 10) : 1) * 1000),
      );
      answer = await this.request(method, path, params, credentials, 120_000);
    }
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
