import { MessageChannel, type MessagePort } from 'node:worker_threads';
import test from 'ava';
import { Carried, fromWire, NoResponders, toWire, TransportTimeout } from '@chat/runtime';
import { ChannelTransport, InProcessTransport, serveChannel, type Channel } from '../src/index.js';
import { bytes, deferred, text } from './helpers.js';

/** A MessagePort seen as a channel (structured clone, as a worker's IPC channel with advanced serialization). */
const channelOf = (port: MessagePort): Channel => ({
  send: (message, _callback) => port.postMessage(message),
  on: (_event, listener) => port.on('message', listener),
});

function pair(calls = {}) {
  const { port1, port2 } = new MessageChannel();
  const inside = new InProcessTransport();
  serveChannel(channelOf(port1), inside, calls);
  const worker = new ChannelTransport(channelOf(port2));
  const close = async () => {
    await worker.close();
    await inside.close();
    port1.close();
  };
  return { inside, worker, close };
}

test('an ask crosses as JSON text and its reply comes back as a value of its own', async (t) => {
  const { inside, worker, close } = pair();
  inside.subscribe('actor.realm.0', (msg) => {
    t.true(msg.data instanceof Carried, 'the in-process side gets a value, not bytes');
    const asked = fromWire<{ n: number }>(msg.data);
    msg.respond?.(toWire(inside, { twice: asked.n * 2 }));
  });
  const reply = await worker.request('actor.realm.0', toWire(worker, { n: 21 }), 1000);
  t.deepEqual(fromWire(reply), { twice: 42 });
  await close();
});

test('bytes cross too, and a tell reaches every subscriber', async (t) => {
  const { inside, worker, close } = pair();
  const got = deferred<string>();
  inside.subscribe('actor.user.>', (msg) => got.resolve(text(msg.data)));
  worker.publish('actor.user.3', bytes('hello'));
  t.is(await got.promise, 'hello');
  await close();
});

test('failures keep their kind: no responders, a timeout of the other side', async (t) => {
  const { inside, worker, close } = pair();
  await t.throwsAsync(worker.request('actor.nobody.1', bytes('x'), 1000), { instanceOf: NoResponders });
  inside.subscribe('actor.slow.1', () => {});
  await t.throwsAsync(worker.request('actor.slow.1', bytes('x'), 50), { instanceOf: TransportTimeout });
  await close();
});

test("calls reach the other side's operations; an unknown one fails", async (t) => {
  const { worker, close } = pair({ add: (a: { x: number; y: number }) => a.x + a.y });
  t.is(await worker.call<number>('add', { x: 2, y: 3 }), 5);
  await t.throwsAsync(worker.call('nope', null), { message: 'no operation nope' });
  await close();
});

test('an edge worker serves no subjects', (t) => {
  const { port2 } = new MessageChannel();
  const worker = new ChannelTransport(channelOf(port2));
  t.throws(() => worker.subscribe('actor.realm.0', () => {}));
  port2.close();
});
