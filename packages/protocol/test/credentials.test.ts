import test from 'ava';
import { generateApiKey, hashPassword, secretsEqual, verifyPassword } from '../src/index.js';

/**
 * The comparisons every secret goes through. Their timing cannot be tested
 * without flakiness; what is tested is that they answer right in every case
 * a caller can provoke, including the ones where a naive constant-time
 * comparison throws (inputs of another length).
 */
test('secretsEqual: equal only when identical, whatever the lengths', (t) => {
  const key = generateApiKey();
  t.true(secretsEqual(key, key));
  t.false(secretsEqual(key, `${key.slice(0, -1)}${key.endsWith('A') ? 'B' : 'A'}`));
  t.false(secretsEqual(key, key.slice(0, -1)));
  t.false(secretsEqual(key, `${key}x`));
  t.false(secretsEqual(key, ''));
  t.true(secretsEqual('', ''));
  // Compared as UTF-8 bytes: a string of the same length in characters but not in bytes differs.
  t.false(secretsEqual('é'.repeat(16), 'e'.repeat(32)));
  t.true(secretsEqual('ключ', 'ключ'));
});

test('API keys are 32 characters of the original alphabet, and differ', (t) => {
  const keys = Array.from({ length: 50 }, generateApiKey);
  for (const key of keys) t.regex(key, /^[A-Za-z0-9]{32}$/);
  t.is(new Set(keys).size, keys.length);
});

test('verifyPassword: the password verifies, anything else does not, and a damaged hash is a mismatch', async (t) => {
  const stored = await hashPassword('correct horse');
  t.true(await verifyPassword('correct horse', stored));
  t.false(await verifyPassword('correct hors', stored));
  t.false(await verifyPassword('', stored));
  // Passwords are compared after NFKC normalization: a no-break space is a space.
  t.true(await verifyPassword('correct\u00a0horse', stored));
  const [scheme, n, r, p, salt, hash] = stored.split('$');
  // A stored hash cut short must not make the comparison throw (a 500) but fail.
  t.false(await verifyPassword('correct horse', [scheme, n, r, p, salt, hash!.slice(0, 10)].join('$')));
  t.false(await verifyPassword('correct horse', 'md5$whatever'));
  t.false(await verifyPassword('correct horse', ''));
});
