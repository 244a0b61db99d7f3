import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import test from 'ava';
import { callUrl, PrivateAddress, type Call, type Resolver } from '../src/bots/egress.js';

/** A resolver that answers `address` for every name and counts its calls. */
function resolvingTo(address: string): Resolver & { calls: number } {
  const resolver = ((_host, options, callback) => {
    resolver.calls += 1;
    const family = address.includes(':') ? 6 : 4;
    if (options.all) callback(null, [{ address, family }]);
    else callback(null, address, family);
  }) as Resolver & { calls: number };
  resolver.calls = 0;
  return resolver;
}

async function hook(t: import('ava').ExecutionContext): Promise<{ port: number; calls: () => number }> {
  let calls = 0;
  const server = createServer((_req, res) => {
    calls += 1;
    res.writeHead(200, { 'content-type': 'application/json' }).end('{"content":"called"}');
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  t.teardown(() => server.close());
  return { port: (server.address() as AddressInfo).port, calls: () => calls };
}

const call = (resolver: Resolver, allowPrivate: boolean): Call => ({
  method: 'POST',
  headers: { 'content-type': 'application/json' },
  body: '{}',
  allowPrivate,
  timeoutMs: 5_000,
  maxAnswerBytes: 1024,
  resolver,
});

test('a name is resolved once, by the connection itself, so the address checked is the one connected to', async (t) => {
  const { port, calls } = await hook(t);
  const resolver = resolvingTo('127.0.0.1');
  const answer = await callUrl(`http://webhooks.example:${port}/hook`, call(resolver, true));
  t.deepEqual(answer, { status: 200, text: '{"content":"called"}' });
  t.is(resolver.calls, 1);
  t.is(calls(), 1);
});

test('a name resolving to a private address at the moment of connecting is refused, and nothing is sent', async (t) => {
  const { port, calls } = await hook(t);
  const resolver = resolvingTo('127.0.0.1');
  const error = await t.throwsAsync(callUrl(`http://rebound.example:${port}/hook`, call(resolver, false)));
  t.true(error instanceof PrivateAddress);
  t.is(error?.message, "The outgoing webhook URL's host rebound.example is a private address.");
  t.is(resolver.calls, 1);
  t.is(calls(), 0);
});

test('private literals are refused without resolving; IPv4-mapped IPv6 loopback too', async (t) => {
  const resolver = resolvingTo('127.0.0.1');
  for (const host of ['127.0.0.1', '[::1]', '[::ffff:127.0.0.1]', '10.1.2.3', '169.254.169.254']) {
    const error = await t.throwsAsync(callUrl(`http://${host}:9/hook`, call(resolver, false)));
    t.true(error instanceof PrivateAddress, host);
  }
  t.is(resolver.calls, 0);
});
