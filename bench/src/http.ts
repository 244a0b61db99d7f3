import { performance } from 'node:perf_hooks';
import { Connection } from './http-connection.js';

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
  hostHeader: string;
  /** Idle keep-alive connections, reused newest first. */
  free: Connection[];
  all: Set<Connection>;
}

/** At most this many idle keep-alive connections are kept per address (as the old agent's maxFreeSockets). */
const MAX_FREE = 4096;

/**
 * The harness's HTTP client: a small HTTP/1.1 client on `node:net`
 * (http-connection.ts) with keep-alive connections and no cap on them, so
 * that thousands of long polls and a burst of sends each get a connection
 * and no request waits for a free one inside the harness (which would hide
 * server latency). It replaced `node:http` with a keep-alive agent, which
 * spent about four times the CPU per long-poll round trip, on the same cores
 * the server uses (bench README, "The harness's client"). Bodies are forms,
 * as Zulip clients send. Given several base URLs (a cluster's edges), each
 * user sticks to one of them, as behind a load balancer, and the users are
 * spread evenly.
 */
export class Http {
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
      return {
        host: url.hostname,
        port: Number(url.port || 80),
        prefix: url.pathname.replace(/\/$/, ''),
        hostHeader: url.host,
        free: [],
        all: new Set(),
      };
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

  /** A free connection to the endpoint (the newest, unless the server may have closed it by now), else a new one. */
  private connection(endpoint: Endpoint): Connection {
    const { free, all } = endpoint;
    const now = performance.now();
    for (let connection = free.pop(); connection; connection = free.pop()) {
      const idle = connection.idleSince;
      connection.idleSince = -1;
      if (!connection.socket.destroyed && now - idle < connection.keepIdleMs) return connection;
      connection.socket.destroy();
    }
    const connection = new Connection(
      endpoint.host,
      endpoint.port,
      (done) => {
        if (free.length >= MAX_FREE) return done.socket.destroy();
        done.idleSince = performance.now();
        free.push(done);
      },
      (closed) => {
        all.delete(closed);
        if (closed.idleSince >= 0) free.splice(free.lastIndexOf(closed), 1);
      },
    );
    all.add(connection);
    return connection;
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
    const endpoint = this.endpointFor(credentials);
    let text = `${method} ${endpoint.prefix}/api/v1${path}${query} HTTP/1.1\r\nhost: ${endpoint.hostHeader}\r\n`;
    if (credentials) {
      text += `authorization: Basic ${Buffer.from(`${credentials.email}:${credentials.apiKey}`).toString('base64')}\r\n`;
    }
    if (inQuery) text += '\r\n';
    else {
      // A form is ASCII (URLSearchParams escapes the rest), so its length is its byte count.
      const body = form.toString();
      text += `content-type: application/x-www-form-urlencoded\r\ncontent-length: ${body.length}\r\n\r\n${body}`;
    }
    return this.connection(endpoint).send(text, timeoutMs);
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
    for (const { all } of this.endpoints) for (const connection of all) connection.socket.destroy();
  }
}
