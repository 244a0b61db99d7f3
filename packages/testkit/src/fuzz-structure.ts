import { basic, BOUNDARY, multipartBody, type FilePart } from './fuzz-encode.js';
import type { FuzzOperation } from './fuzz-operations.js';
import type { FuzzRequest } from './fuzz.js';

/**
 * Attacks on a whole request rather than one parameter: credentials that are
 * wrong or unreadable, bodies that do not parse or claim the wrong type or
 * encoding, keys that could pollute prototypes, too many fields, and for
 * uploads, hostile file parts. `base` is the operation's plausible request.
 */
export function hostileRequests(
  op: FuzzOperation,
  plausible: () => FuzzRequest,
  memberEmail: string,
): Array<[string, () => FuzzRequest]> {
  const out: Array<[string, () => FuzzRequest]> = [];
  // Built lazily, each from a fresh plausible request: some of these bodies are large.
  const base = plausible();
  const variant = (label: string, change: () => Partial<FuzzRequest>) =>
    out.push([
      label,
      () => {
        const request = plausible();
        const changed = change();
        return { ...request, ...changed, label, headers: { ...request.headers, ...changed.headers } };
      },
    ]);

  const auth = (label: string, header?: string) => {
    const headers: Record<string, string> = header === undefined ? {} : { authorization: header };
    variant(label, () => ({ auth: 'given', headers }));
  };
  auth('no credentials');
  auth('wrong API key', basic(memberEmail, 'x'.repeat(32)));
  auth('unknown user', basic('nobody@example.com', 'x'.repeat(32)));
  auth('empty credentials', basic('', ''));
  auth('credentials not base64', 'Basic !!!');
  auth('credentials without a colon', `Basic ${Buffer.from('no-colon').toString('base64')}`);
  auth('credentials of invalid UTF-8', `Basic ${Buffer.from([0xff, 0x3a, 0xfe]).toString('base64')}`);
  auth('bearer token', 'Bearer abc');
  auth('three words', 'Basic a b');
  auth('long credentials', basic(`${'a'.repeat(3000)}@example.com`, 'k'.repeat(3000)));

  const sep = base.path.includes('?') ? '&' : '?';
  const query = (label: string, extra: string) => variant(label, () => ({ path: `${base.path}${sep}${extra}` }));
  query('prototype keys in the query', '__proto__=1&constructor=x&toString=y&hasOwnProperty=z');
  query('a key repeated 1,000 times', 'dup=1&'.repeat(1000));
  query('bracketed keys', 'a[b][c]=1&a[]=2&__proto__[polluted]=1');
  query('broken percent escape in the query', 'x=%&%zz=1');
  variant('trailing slash', () => ({ path: base.path.replace(/^([^?]*)/, '$1/') }));
  variant('method override header', () => ({ headers: { 'x-http-method-override': 'DELETE' } }));

  if (op.method === 'GET') return out;
  const form = 'application/x-www-form-urlencoded';
  const text = typeof base.body === 'string' ? base.body : '';
  const body = (label: string, type: string, content: string | (() => string | Buffer), extra = {}) =>
    variant(label, () => ({
      body: typeof content === 'string' ? content : content(),
      headers: { 'content-type': type, ...extra },
    }));
  body('invalid JSON body', 'application/json', '{"a":');
  body('JSON list body', 'application/json', '[1,2]');
  body('JSON null body', 'application/json', 'null');
  body('JSON string body', 'application/json', '"x"');
  body('deeply nested JSON body', 'application/json', () => `{"a":${'['.repeat(20_000)}${']'.repeat(20_000)}}`);
  body('JSON body with prototype keys', 'application/json', '{"__proto__":{"polluted":true},"constructor":1}');
  body('plain text body', 'text/plain', 'hello');
  body('XML body', 'application/xml', '<a/>');
  body('multipart without a boundary', 'multipart/form-data', '--x\r\n');
  body('truncated multipart', `multipart/form-data; boundary=${BOUNDARY}`, `--${BOUNDARY}\r\nContent-Dispo`);
  body('not gzip', form, 'not gzip', { 'content-encoding': 'gzip' });
  body('unknown content encoding', form, text, { 'content-encoding': 'x-fuzz' });
  body('UTF-16 charset', `${form}; charset=utf-16`, text);
  body('unknown charset', `${form}; charset=x-fuzz`, text);
  body('empty form body', form, '');
  body('20,000 form fields', form, () => Array.from({ length: 20_000 }, (_, i) => `f${i}=1`).join('&'));
  body('a key repeated 10,000 times', form, () => `${text}&${'dup=1&'.repeat(10_000)}`);
  body('prototype keys in the form', form, `${text}&__proto__=1&constructor=x&toString=y&hasOwnProperty=z`);
  body('bracketed keys in the form', form, `${text}&a[b][c]=1&a[]=2&__proto__[polluted]=1`);
  const multipart = base.headers['content-type'] ?? '';
  if (op.multipart)
    for (const [label, files] of uploadAttacks()) body(label, multipart, () => multipartBody([], files));
  return out;
}

const file = (filename: string, change: Partial<FilePart> = {}): FilePart => ({
  field: 'filename',
  filename,
  contentType: 'text/plain',
  data: 'hello',
  ...change,
});

function uploadAttacks(): Array<[string, FilePart[]]> {
  return [
    ['no file', []],
    ['empty file name', [file('')]],
    ['file name with NUL', [file('a\u0000b.txt')]],
    ['file name with path traversal', [file('../../../etc/passwd')]],
    ['file name with RTL override', [file('\u202Etxt.exe')]],
    ['file name of 5,000 characters', [file(`${'n'.repeat(5000)}.txt`)]],
    ['file name of emoji', [file('👩‍👩‍👧‍👦.png')]],
    ['file name with a quote', [file('a"b.txt')]],
    ['file name of dots', [file('..')]],
    ['HTML file', [file('x.html', { contentType: 'text/html', data: '<script>alert(1)</script>' })]],
    ['SVG file', [file('x.svg', { contentType: 'image/svg+xml', data: '<svg onload="alert(1)"/>' })]],
    ['empty file', [file('empty.txt', { data: '' })]],
    ['two files', [file('a.txt'), file('b.txt')]],
    ['file in another field', [file('a.txt', { field: 'file' })]],
    ['odd content type', [file('a.txt', { contentType: '../../x; charset="' })]],
  ];
}
