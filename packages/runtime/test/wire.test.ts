import test from 'ava';
import { decode } from '@chat/protocol';
import { Carried, fromWire, JsonText, toWire, type Transport } from '../src/ports/index.js';

const inProcess = { carriesValues: true } as Transport;
const remote = {} as Transport;

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
