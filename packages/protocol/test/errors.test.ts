import test from 'ava';
import { ChatError, ERROR_CODES } from '../src/index.js';

test('a code shows itself in the envelope unless its entry names another', (t) => {
  const plain = new ChatError('NOT_FOUND', 'File not found');
  t.is(plain.status, 404);
  t.is(plain.envelopeCode, 'NOT_FOUND');
  const missing = new ChatError('RESOURCE_NOT_FOUND', 'Draft does not exist');
  t.is(missing.status, 404);
  t.is(missing.envelopeCode, 'BAD_REQUEST');
});

test('the status and envelope code survive the wire, which carries only the code', (t) => {
  const wire = JSON.parse(
    JSON.stringify(new ChatError('RESOURCE_NOT_FOUND', 'Saved snippet does not exist.').toWire()),
  );
  t.deepEqual(wire, { code: 'RESOURCE_NOT_FOUND', msg: 'Saved snippet does not exist.' });
  const back = ChatError.fromWire(wire);
  t.like(back, { status: 404, envelopeCode: 'BAD_REQUEST', message: 'Saved snippet does not exist.' });
});

test('every envelope code another code shows is itself a code of the table', (t) => {
  for (const entry of Object.values(ERROR_CODES)) {
    const shown: string | undefined = (entry as { envelopeCode?: string }).envelopeCode;
    if (shown !== undefined) t.true(shown in ERROR_CODES, shown);
  }
});
