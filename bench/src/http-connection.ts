import net from 'node:net';
import { performance } from 'node:perf_hooks';
import type { Answer } from './http.js';

/** What a connection hands back when a response has been read whole. */
interface Waiting {
  resolve: (answer: Answer) => void;
  timeoutMs: number;
}

const enum State {
  Head,
  Body,
  ChunkSize,
  ChunkData,
  ChunkEnd,
  Trailer,
  UntilClose,
}

/** A response head longer than this is not a server we talk to. */
const MAX_HEAD = 64 * 1024;

/**
 * One keep-alive HTTP/1.1 connection of the harness's client (`Http`): one
 * request at a time (no pipelining), the response read by a small parser
 * (status line; content-length, chunked or until close; connection,
 * keep-alive and retry-after), its body parsed as JSON. Whatever goes wrong
 * (an error, a close before the whole answer, no bytes for the request's
 * timeout) answers the waiting request with status 0 and ends the socket.
 */
export class Connection {
  readonly socket: net.Socket;
  /** Set while the connection sits in its pool's free list. */
  idleSince = -1;
  /** How long the server keeps an idle connection (its `Keep-Alive: timeout`), less a second; unknown: forever. */
  keepIdleMs = Infinity;
  private waiting: Waiting | undefined;
  private error: Error | undefined;
  private state = State.Head;
  private rest: Buffer | undefined;
  private remaining = 0;
  private parts: Buffer[] = [];
  private bytes = 0;
  private status = 0;
  private keepAlive = true;
  private retryAfter: string | undefined;

  constructor(
    host: string,
    port: number,
    /** Called once the response is whole and the connection may serve another request. */
    private readonly onFree: (connection: Connection) => void,
    /** Called once when the socket has closed. */
    onClose: (connection: Connection) => void,
  ) {
    this.socket = net.connect({ host, port, noDelay: true });
    this.socket.on('data', (data: Buffer) => this.read(data));
    this.socket.on('error', (error) => (this.error ??= error));
    this.socket.on('timeout', () => {
      if (this.waiting) this.fail(new Error(`timed out after ${this.waiting.timeoutMs} ms`));
      this.socket.destroy();
    });
    this.socket.on('end', () => {
      if (this.state === State.UntilClose) this.finish();
      this.socket.destroy();
    });
    this.socket.on('close', () => {
      if (this.waiting) this.fail(this.error ?? new Error('socket hang up'));
      onClose(this);
    });
  }

  /** Sends a whole request (head and body as one string); the promise never rejects. */
  send(text: string, timeoutMs: number): Promise<Answer> {
    return new Promise((resolve) => {
      this.waiting = { resolve, timeoutMs };
      this.socket.setTimeout(timeoutMs);
      this.socket.write(text);
    });
  }

  private fail(error: Error) {
    const waiting = this.waiting!;
    this.waiting = undefined;
    waiting.resolve({ status: 0, body: { result: 'error', msg: error.message }, end: performance.now(), bytes: 0 });
  }

  private read(data: Buffer) {
    if (this.rest) {
      data = Buffer.concat([this.rest, data]);
      this.rest = undefined;
    }
    let at = 0;
    while (at < data.length) {
      switch (this.state) {
        case State.Head: {
          const end = data.indexOf('\r\n\r\n', at);
          if (end < 0) return this.keep(data, at, MAX_HEAD);
          if (!this.waiting) return this.broken('a response nobody asked for');
          this.head(data.toString('latin1', at, end));
          at = end + 4;
          break;
        }
        case State.Body:
        case State.ChunkData:
        case State.UntilClose: {
          const take = this.state === State.UntilClose ? data.length - at : Math.min(this.remaining, data.length - at);
          this.parts.push(data.subarray(at, at + take));
          this.bytes += take;
          at += take;
          this.remaining -= take;
          if (this.remaining === 0 && this.state === State.Body) this.finish();
          else if (this.remaining === 0 && this.state === State.ChunkData) this.state = State.ChunkEnd;
          break;
        }
        case State.ChunkSize: {
          const end = data.indexOf('\r\n', at);
          if (end < 0) return this.keep(data, at, 1024);
          const size = parseInt(data.toString('latin1', at, end), 16);
          if (!(size >= 0)) return this.broken('a bad chunk size');
          at = end + 2;
          this.remaining = size;
          this.state = size === 0 ? State.Trailer : State.ChunkData;
          break;
        }
        case State.ChunkEnd:
          if (data.length - at < 2) return this.keep(data, at, 2);
          at += 2;
          this.state = State.ChunkSize;
          break;
        case State.Trailer: {
          const end = data.indexOf('\r\n', at);
          if (end < 0) return this.keep(data, at, MAX_HEAD);
          if (end === at) this.finish();
          at = end + 2;
          break;
        }
      }
    }
  }

  /** Keeps an unfinished line or head for the next data, unless it is already too long. */
  private keep(data: Buffer, at: number, limit: number) {
    if (data.length - at > limit) return this.broken('a response line too long');
    this.rest = data.subarray(at);
  }

  private broken(why: string) {
    this.error = new Error(`bad HTTP response: ${why}`);
    this.socket.destroy();
  }

  private head(head: string) {
    const version = head.slice(0, 9);
    this.status = Number(head.slice(9, 12));
    this.keepAlive = version === 'HTTP/1.1 ';
    this.retryAfter = undefined;
    this.parts = [];
    this.bytes = 0;
    let length = -1;
    let chunked = false;
    for (let line = head.indexOf('\r\n') + 2; line > 1;) {
      const next = head.indexOf('\r\n', line);
      const colon = head.indexOf(':', line);
      const stop = next < 0 ? head.length : next;
      if (colon > 0 && colon < stop) {
        const name = head.slice(line, colon).toLowerCase();
        const value = head.slice(colon + 1, stop).trim();
        if (name === 'content-length') length = Number(value);
        else if (name === 'transfer-encoding') chunked = value.toLowerCase().includes('chunked');
        else if (name === 'connection') {
          const token = value.toLowerCase();
          if (token.includes('close')) this.keepAlive = false;
          else if (token.includes('keep-alive')) this.keepAlive = true;
        } else if (name === 'keep-alive') {
          const seconds = /timeout=(\d+)/i.exec(value);
          if (seconds) this.keepIdleMs = Number(seconds[1]) * 1000 - 1000;
        } else if (name === 'retry-after') this.retryAfter = value;
      }
      line = next + 2;
    }
    if (chunked) this.state = State.ChunkSize;
    else if (length >= 0) {
      this.state = State.Body;
      this.remaining = length;
      if (length === 0 || this.status === 204 || this.status === 304) this.finish();
    } else if (this.status === 204 || this.status === 304) this.finish();
    else {
      this.state = State.UntilClose;
      this.keepAlive = false;
    }
  }

  private finish() {
    const end = performance.now();
    const raw = this.parts.length === 1 ? this.parts[0]! : Buffer.concat(this.parts, this.bytes);
    const answer: Answer = { status: this.status, body: parse(raw), end, bytes: raw.length };
    if (this.retryAfter !== undefined) answer.retryAfter = this.retryAfter;
    const waiting = this.waiting!;
    this.waiting = undefined;
    this.parts = [];
    this.state = State.Head;
    this.socket.setTimeout(0);
    if (this.keepAlive) this.onFree(this);
    else this.socket.destroy();
    waiting.resolve(answer);
  }
}

function parse(raw: Buffer): Record<string, unknown> {
  const text = raw.toString();
  try {
    return JSON.parse(text) as Record<string, unknown>;
  } catch {
    return { result: 'error', msg: `not JSON: ${text.slice(0, 200)}` };
  }
}
