import { request } from 'node:http';

/**
 * `fetch`, but sending the given `Host` header. A realm is chosen by the
 * subdomain in `Host` (server/realm-host.ts), and the platform's fetch
 * always sends the URL's own host, so a client of another realm on the
 * same test server speaks plain HTTP instead. Redirects are not followed.
 */
export async function fetchWithHost(url: string, init: RequestInit, host: string): Promise<Response> {
  // A Request encodes the body as fetch would (form, multipart) and names its content type.
  const prepared = new Request(url, init);
  const body = init.body === undefined || init.body === null ? undefined : Buffer.from(await prepared.arrayBuffer());
  const headers: Record<string, string> = {};
  prepared.headers.forEach((value, name) => (headers[name] = value));
  headers.host = host;
  if (body) headers['content-length'] = String(body.length);
  return new Promise((resolve, reject) => {
    const outgoing = request(url, { method: prepared.method, headers }, (incoming) => {
      const chunks: Buffer[] = [];
      incoming.on('data', (chunk: Buffer) => chunks.push(chunk));
      incoming.on('error', reject);
      incoming.on('end', () => {
        const replyHeaders = new Headers();
        for (const [name, value] of Object.entries(incoming.headers)) {
          if (value !== undefined) replyHeaders.set(name, Array.isArray(value) ? value.join(', ') : value);
        }
        const status = incoming.statusCode ?? 500;
        const empty = [204, 205, 304].includes(status);
        resolve(new Response(empty ? null : Buffer.concat(chunks), { status, headers: replyHeaders }));
      });
    });
    outgoing.on('error', reject);
    outgoing.end(body);
  });
}
