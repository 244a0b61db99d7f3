import test from 'ava';
import { decode, type ActorAddress } from '@chat/protocol';
import { TransportActorClient } from '../src/client.js';
import { Carried, checkValues, copyJson, fromWire, JsonText, toWire, type Transport } from '../src/ports/index.js';

const inProcess = { carriesValues: true } as Transport;
const remote = {} as Transport;

// What `scripts/test.sh` turns on with CHAT_CHECK_VALUES=1, whatever the environment of this run.
checkValues(true);

test('a body already written as JSON text goes out as the value it stands for, either way', (t) => {
  const body = { users: [{ id: 1, name: 'Ünï' }], none: null };
  for (const envelope of [
    { v: 1, ok: true, body: new JsonText(JSON.stringify(body)), at: 4 },
    { body: new JsonText(JSON.stringify(body)) },
    { v: 1, ok: true, body: new JsonText('null') },
  ]) {
    const plain = JSON.parse(JSON.stringify(envelope)) as unknown;
    const carried = toWire(inProcess, envelope);
    t.true(carried instanceof Carried);
    t.deepEqual(fromWire(carried), plain);
    t.deepEqual(decode(toWire(remote, envelope)), plain);
  }
  t.deepEqual(JSON.parse(JSON.stringify({ body: new JsonText('[1,2]') })), { body: [1, 2] });
});

test('in this process the value itself is handed over; to another, its JSON bytes as before', (t) => {
  const value = { v: 1, body: { list: [1, 'two', null, { deep: true }], none: undefined } };
  t.is(fromWire(toWire(inProcess, value)), value, 'no copy');
  t.deepEqual(toWire(remote, value), new TextEncoder().encode(JSON.stringify(value)));
});

test('check mode: a change after the send throws, by the sender or by a receiver', (t) => {
  const sent = { list: [1], inner: { n: 1 } };
  const got = fromWire<typeof sent>(toWire(inProcess, sent, 'actor.user.3'));
  t.throws(() => sent.list.push(2), { instanceOf: TypeError });
  t.throws(() => (got.inner.n = 2), { instanceOf: TypeError });
  t.throws(() => delete (got as Partial<typeof sent>).list, { instanceOf: TypeError });
  t.deepEqual(got, { list: [1], inner: { n: 1 } });
});

test('check mode: a value a JSON round trip would change throws, naming the subject and the place', (t) => {
  class Point {
    x = 1;
  }
  const bad: Array<[unknown, string]> = [
    [{ a: [1, undefined] }, 'undefined at a[1]'],
    [{ at: new Date(0) }, 'a Date object at at'],
    [{ m: new Map() }, 'a Map object at m'],
    [{ p: new Point() }, 'a Point object at p'],
    [{ n: Number.NaN }, 'NaN at n'],
    [{ n: [Infinity] }, 'Infinity at n[0]'],
    [{ z: -0 }, '-0 at z'],
    [{ f: () => 1 }, 'a function at f'],
    [{ big: 1n }, 'a bigint at big'],
    // eslint-disable-next-line no-sparse-arrays
    [{ holes: [1, , 3] }, 'a hole at holes[1]'],
    [undefined, 'undefined at the top'],
  ];
  for (const [value, where] of bad) {
    const err = t.throws(() => toWire(inProcess, value, 'actor.realm.0'));
    t.is(err?.message, `not a JSON value on actor.realm.0: ${where} (a cluster would see another value)`);
  }
  // What JSON keeps the same, or reads the same: an absent property is undefined on both sides.
  for (const value of [
    { a: undefined, b: [null, 0, '', false, { c: {} }] },
    { body: new JsonText('[1]') },
    null,
    'x',
  ]) {
    t.notThrows(() => toWire(inProcess, value, 'actor.realm.0'));
  }
  t.notThrows(() => toWire(remote, { at: new Date(0) }), 'to another process the bytes are JSON, checked or not');
});

test('copyJson gives what a JSON round trip gives, key order included', (t) => {
  const value = {
    b: [undefined, Number.NaN, -0, () => 1, Infinity, 'é'],
    a: undefined,
    2: 'two',
    1: { at: new Date(0), map: new Map([[1, 2]]), text: new JsonText('{"x":[1]}') },
    f: () => 1,
    own: JSON.parse('{"__proto__": {"polluted": true}}') as unknown,
  };
  const copy = copyJson(value);
  t.is(JSON.stringify(copy), JSON.stringify(value));
  t.deepEqual(copy, JSON.parse(JSON.stringify(value)));
  t.is(({} as { polluted?: boolean }).polluted, undefined);
  t.is(Object.getPrototypeOf((copy as { own: object }).own), Object.prototype);
  t.is(copyJson(undefined), null);
  t.not(copyJson(value), value);
});

test('an ask whose message cannot be written rejects; it never throws at its caller', async (t) => {
  const sent: string[] = [];
  const transport = {
    request: (subject: string) => (sent.push(subject), Promise.reject(new Error('not reached'))),
  } as unknown as Transport;
  const client = new TransportActorClient(transport, { shardCount: 4, defaultTimeoutMs: 1_000 });
  let asked: Promise<unknown> | undefined;
  t.notThrows(() => {
    asked = client.ask({ type: 'realm', key: 'r' } as ActorAddress, { type: 'realm.settings', n: 1n } as never);
  });
  await t.throwsAsync(asked!, { message: /BigInt/ });
  t.deepEqual(sent, []);
});
