import { createServer, STATUS_CODES, type Server } from 'node:http';
import type { Duplex } from 'node:stream';
import type { createLogger } from '@chat/edge';

type Logger = ReturnType<typeof createLogger>;

export interface HttpLimits {
  /** The whole request (headers and body) must arrive within this long; 0: no limit. */
  requestTimeoutMs: number;
  /** Its headers within this long. */
  headersTimeoutMs: number;
}

/**
 * The HTTP server with the limits on slow clients. Node enforces both
 * timeouts by a sweep of open connections every `connectionsCheckingInterval`
 * (30 s by default, which would let a stalled request live 30 s past its
 * limit); a quarter of the shorter timeout keeps the overshoot small.
 */
export function createHttpServer(limits: HttpLimits, log: Logger): Server {
  const shortest = Math.min(...[limits.requestTimeoutMs, limits.headersTimeoutMs].filter((ms) => ms > 0));
  const server = createServer({
    requestTimeout: limits.requestTimeoutMs,
    headersTimeout: limits.headersTimeoutMs,
    connectionsCheckingInterval: Number.isFinite(shortest) ? Math.max(25, Math.min(30_000, shortest / 4)) : 30_000,
  });
  server.on('clientError', (err: NodeJS.ErrnoException, socket: Duplex) => answerClientError(err, socket, log));
  return server;
}

// Node's own answers to a request it cannot hand to the application.
const STATUS_OF: Record<string, number> = {
  HPE_HEADER_OVERFLOW: 431,
  ERR_HTTP_REQUEST_TIMEOUT: 408,
};
const MESSAGE_OF: Record<number, string> = {
  431: 'Request header fields too large',
  408: 'Request timed out',
  400: 'Malformed HTTP request',
};

/**
 * What Node does by default (an empty 400, 408 or 431 and a closed
 * connection), with a Zulip envelope as the body, so that even a request
 * that never reached the edge is answered in the API's format.
 */
function answerClientError(err: NodeJS.ErrnoException, socket: Duplex, log: Logger): void {
  const response = (socket as Duplex & { _httpMessage?: { headersSent?: boolean } })._httpMessage;
  if (err.code === 'ECONNRESET' || !socket.writable || response?.headersSent) {
    socket.destroy();
    return;
  }
  const status = STATUS_OF[err.code ?? ''] ?? 400;
  log.debug({ code: err.code, status }, 'client error');
  const body = JSON.stringify({ result: 'error', msg: MESSAGE_OF[status], code: 'BAD_REQUEST' });
  const head = [
    `HTTP/1.1 ${status} ${STATUS_CODES[status]}`,
    'Content-Type: application/json',
    `Content-Length: ${Buffer.byteLength(body)}`,
    'Connection: close',
  ];
  socket.end(`${head.join('\r\n')}\r\n\r\n${body}`, () => socket.destroy());
}
