import { connect, type Socket } from 'node:net';

/**
 * HTTP spoken by hand over a socket, for what fetch will not do: headers
 * that never end, a body that stops half-way, a Content-Length that lies.
 */
export interface RawConnection {
  socket: Socket;
  /** Settles when the server closes the connection, with everything it sent and when. */
  closed: Promise<{ text: string; afterMs: number }>;
  /** Settles once the server has sent this much (e.g. a whole response head). */
  received(pattern: RegExp): Promise<string>;
}

export async function rawConnection(url: string): Promise<RawConnection> {
  const { hostname, port } = new URL(url);
  const started = Date.now();
  const socket = connect(Number(port), hostname);
  await new Promise<void>((resolve, reject) => socket.once('connect', resolve).once('error', reject));
  let text = '';
  const waiting: Array<{ pattern: RegExp; resolve: (text: string) => void }> = [];
  socket.setEncoding('latin1').on('data', (chunk: string) => {
    text += chunk;
    for (const w of waiting.filter((w) => w.pattern.test(text))) {
      waiting.splice(waiting.indexOf(w), 1);
      w.resolve(text);
    }
  });
  // A reset after the server answered is how some closes look; the text so far is what counts.
  socket.on('error', () => {});
  const closed = new Promise<{ text: string; afterMs: number }>((resolve) =>
    socket.once('close', () => resolve({ text, afterMs: Date.now() - started })),
  );
  const received = (pattern: RegExp) =>
    new Promise<string>((resolve, reject) => {
      if (pattern.test(text)) return resolve(text);
      waiting.push({ pattern, resolve });
      void closed.then(() => reject(new Error(`closed without ${pattern}; got: ${text.slice(0, 500)}`)));
    });
  return { socket, closed, received };
}

/** Writes `text` one byte every `everyMs` until the connection closes; answers a stop function. */
export function trickle(socket: Socket, text: string, everyMs: number): () => void {
  let i = 0;
  const timer = setInterval(() => {
    if (socket.destroyed || !socket.writable) return clearInterval(timer);
    socket.write(text[i % text.length]!);
    i++;
  }, everyMs);
  socket.once('close', () => clearInterval(timer));
  return () => clearInterval(timer);
}

/** The status and parsed JSON body of a raw HTTP/1.1 response. */
export function parseResponse(text: string): { status: number; headers: string; body: unknown } {
  const split = text.indexOf('\r\n\r\n');
  const head = split < 0 ? text : text.slice(0, split);
  const status = Number(/^HTTP\/1\.1 (\d{3})/.exec(head)?.[1] ?? 0);
  let body: unknown;
  try {
    body = JSON.parse(text.slice(split + 4));
  } catch {
    body = text.slice(split + 4);
  }
  return { status, headers: head, body };
}

export const basicAuth = (email: string, apiKey: string) =>
  `Basic ${Buffer.from(`${email}:${apiKey}`).toString('base64')}`;
