import { lookup as dnsLookup, type LookupAddress } from 'node:dns';
import { request as httpRequest } from 'node:http';
import { request as httpsRequest } from 'node:https';
import { BlockList, isIP, type LookupFunction } from 'node:net';

/**
 * Addresses an outgoing webhook may not reach unless the server allows it:
 * loopback, private, link-local, shared, multicast and unspecified ranges,
 * as the original's egress proxy (Smokescreen) refuses them.
 */
const privateRanges = new BlockList();
for (const [net, prefix] of [
  ['0.0.0.0', 8],
  ['10.0.0.0', 8],
  ['100.64.0.0', 10],
  ['127.0.0.0', 8],
  ['169.254.0.0', 16],
  ['172.16.0.0', 12],
  ['192.0.0.0', 24],
  ['192.168.0.0', 16],
  ['198.18.0.0', 15],
  ['224.0.0.0', 3],
] as const)
  privateRanges.addSubnet(net, prefix, 'ipv4');
for (const [net, prefix] of [
  ['::', 127], // unspecified and loopback
  ['fc00::', 7],
  ['fe80::', 10],
  ['ff00::', 8],
] as const)
  privateRanges.addSubnet(net, prefix, 'ipv6');

export function isPrivateAddress(address: string): boolean {
  const family = isIP(address);
  if (family === 0) return true;
  const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i.exec(address);
  if (mapped) return privateRanges.check(mapped[1]!, 'ipv4');
  return privateRanges.check(address, family === 4 ? 'ipv4' : 'ipv6');
}

/** Thrown when a webhook URL's host is, or resolves to, a private address. */
export class PrivateAddress extends Error {
  constructor(host: string) {
    super(`The outgoing webhook URL's host ${host} is a private address.`);
  }
}

/** How a name is resolved: `dns.lookup`'s form (tests give their own). */
export type Resolver = (
  hostname: string,
  options: { all?: boolean; family?: number | string },
  callback: (err: NodeJS.ErrnoException | null, address: string | LookupAddress[], family?: number) => void,
) => void;

/**
 * A `lookup` for the connection that refuses private answers: the address
 * checked is the address connected to, with no second resolution in
 * between for a name to change its answer in (DNS rebinding).
 */
function publicOnly(resolve: Resolver): LookupFunction {
  return (hostname, options, callback) =>
    resolve(hostname, options, (err, address, family) => {
      const all = Array.isArray(address) ? address.map((a) => a.address) : [address];
      if (!err && all.some(isPrivateAddress)) err = new PrivateAddress(hostname);
      (callback as (e: Error | null, a: string | LookupAddress[], f?: number) => void)(err, address, family);
    });
}

/** Thrown when an answer is larger than the call allows. */
export class AnswerTooLarge extends Error {}

export interface Call {
  method: 'POST';
  headers: Record<string, string>;
  body: string;
  /** Private addresses are reached too (development, or OUTGOING_WEBHOOKS_ALLOW_PRIVATE). */
  allowPrivate: boolean;
  timeoutMs: number;
  /** A larger answer is a failure, refused without reading the rest. */
  maxAnswerBytes: number;
  /** `dns.lookup` unless a test says otherwise. */
  resolver?: Resolver;
}

/**
 * One HTTP call to a webhook URL, redirects not followed. Unless private
 * addresses are allowed, a host that names one, or resolves to one at the
 * moment of connecting, is refused with `PrivateAddress`.
 */
export function callUrl(url: string, call: Call): Promise<{ status: number; text: string }> {
  const target = new URL(url);
  const host = target.hostname.replace(/^\[|\]$/g, '');
  if (!call.allowPrivate && isIP(host) !== 0 && isPrivateAddress(host)) return Promise.reject(new PrivateAddress(host));
  const request = target.protocol === 'https:' ? httpsRequest : httpRequest;
  const resolver = call.resolver ?? (dnsLookup as Resolver);
  return new Promise((resolve, reject) => {
    const req = request(
      target,
      {
        method: call.method,
        headers: { ...call.headers, 'content-length': String(Buffer.byteLength(call.body)) },
        signal: AbortSignal.timeout(call.timeoutMs),
        lookup: call.allowPrivate ? (resolver as LookupFunction) : publicOnly(resolver),
      },
      (res) => {
        const chunks: Buffer[] = [];
        let size = 0;
        res.on('data', (chunk: Buffer) => {
          size += chunk.byteLength;
          if (size > call.maxAnswerBytes) {
            res.destroy();
            reject(new AnswerTooLarge(`the answer is larger than ${call.maxAnswerBytes} bytes`));
          } else chunks.push(chunk);
        });
        res.on('error', reject);
        res.on('end', () => resolve({ status: res.statusCode ?? 0, text: Buffer.concat(chunks).toString('utf8') }));
      },
    );
    req.on('error', reject);
    req.end(call.body);
  });
}
