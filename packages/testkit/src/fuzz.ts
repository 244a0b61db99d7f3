import {
  formText,
  jsonObjectText,
  multipartBody,
  percent,
  type Field,
  type FilePart,
  BOUNDARY,
} from './fuzz-encode.js';
import {
  nestedValues,
  operationsOf,
  plausible,
  wireText,
  type FuzzOperation,
  type FuzzParam,
} from './fuzz-operations.js';
import { anyValues, jsonValues, pathValues, seededRandom, typedJsonTexts, type WireValue } from './fuzz-values.js';
import { hostileRequests } from './fuzz-structure.js';

/**
 * Requests that attack every operation of an OpenAPI document, one parameter
 * at a time: the other parameters keep plausible values (from the test's
 * hints), so the hostile one travels past validation of the others and into
 * the handler. Then whole-request attacks: credentials, content types,
 * bodies that do not parse (fuzz-structure.ts).
 */
export interface FuzzRequest {
  /** `POST /messages`: the document's operation. */
  operation: string;
  /** What is hostile about it, e.g. `content: NUL byte`. */
  label: string;
  method: string;
  /** Under /api/v1, with the query string. */
  path: string;
  headers: Record<string, string>;
  body?: string | Buffer;
  /** `member`: the sender adds the member's credentials; otherwise `headers` say everything. */
  auth: 'member' | 'given';
}

export interface FuzzOptions {
  seed: number;
  /** Plausible values by parameter name (ids that exist, a channel name...). */
  hints?: Record<string, unknown>;
  /** The longest value put in a query string (Node refuses request heads over 16 KB). Default 6,000. */
  queryRoom?: number;
  /** The longest value put in a body. Default 100,000. */
  bodyRoom?: number;
  /** At most about this many requests: per-value cases are sampled (seeded) down; the others all stay. */
  budget?: number;
  /** The member whose credentials the sender adds; used for a wrong-key attempt. */
  memberEmail?: string;
}

/** One request of the run, built only when sent: the hostile values are large. */
export interface FuzzCase {
  operation: string;
  label: string;
  build(): FuzzRequest;
}

interface Draft {
  case: FuzzCase;
  /** Kept whatever the budget: a base request, a missing parameter, a whole-request attack. */
  always: boolean;
}

export function fuzzCases(doc: Record<string, unknown>, options: FuzzOptions): FuzzCase[] {
  const random = seededRandom(options.seed);
  const perOperation = operationsOf(doc).map((op) => operationDrafts(op, options));
  const always = perOperation.reduce((n, drafts) => n + drafts.filter((d) => d.always).length, 0);
  const shares = fairShares(
    perOperation.map((drafts) => drafts.filter((d) => !d.always).length),
    Math.max(0, (options.budget ?? Infinity) - always),
  );
  return perOperation.flatMap((drafts, i) => {
    const optional = drafts.filter((d) => !d.always);
    const kept = new Set(sample(optional, shares[i]!, random));
    return drafts.filter((d) => d.always || kept.has(d)).map((d) => d.case);
  });
}

/** Splits `room` between operations so that one with sixty settings does not crowd out the rest. */
function fairShares(counts: number[], room: number): number[] {
  const shares = new Array<number>(counts.length).fill(0);
  const order = counts.map((count, i) => ({ count, i })).sort((a, b) => a.count - b.count);
  let left = room;
  order.forEach(({ count, i }, rank) => {
    shares[i] = Math.min(count, Math.floor(left / (order.length - rank)));
    left -= shares[i]!;
  });
  return shares;
}

function sample<T>(items: T[], n: number, random: () => number): T[] {
  const copy = [...items];
  for (let i = copy.length - 1; i > 0; i--) {
    const j = Math.floor(random() * (i + 1));
    [copy[i], copy[j]] = [copy[j]!, copy[i]!];
  }
  return copy.slice(0, n);
}

function operationDrafts(op: FuzzOperation, options: FuzzOptions): Draft[] {
  const hints = options.hints ?? {};
  const operation = `${op.method} ${op.path}`;
  const base = new Set(op.params.filter((p) => p.required || p.in === 'path' || p.name in hints));
  const plain = (p: FuzzParam): WireValue => ({ label: 'plausible', text: wireText(plausible(p, hints)) });
  const make = (label: string, replace?: FuzzParam, value?: WireValue | null): FuzzRequest => {
    const values = new Map<FuzzParam, WireValue | null>([...base].map((p) => [p, plain(p)]));
    if (replace) values.set(replace, value ?? null);
    return { operation, label, method: op.method, ...encode(op, values), auth: 'member' };
  };
  const draft = (label: string, always: boolean, build: () => FuzzRequest): Draft => ({
    case: { operation, label, build },
    always,
  });
  const drafts: Draft[] = [draft('base', true, () => make('base'))];
  for (const param of op.params) {
    if (param.required) {
      const label = `${param.name}: missing`;
      drafts.push(draft(label, true, () => make(label, param, null)));
    }
    const room = param.in === 'body' ? (options.bodyRoom ?? 100_000) : (options.queryRoom ?? 6000);
    const values = param.in === 'path' ? pathValues : [...anyValues(room), ...(param.json ? jsonValues : [])];
    for (const value of [...values, ...nestedValues(param, typedJsonTexts)]) {
      const label = `${param.name}: ${value.label}`;
      drafts.push(draft(label, false, () => make(label, param, value)));
    }
  }
  // A JSON body keeps its values' types, so typed hostility reaches the schema checks directly.
  const bodyParams = op.params.filter((p) => p.in === 'body');
  for (const param of op.multipart ? [] : bodyParams) {
    for (const value of typedJsonTexts) {
      const label = `${param.name} in a JSON body: ${value.label}`;
      drafts.push(
        draft(label, false, () => {
          const properties = bodyParams
            .filter((p) => p === param || base.has(p))
            .map((p): [string, string] => [p.name, p === param ? value.text : JSON.stringify(plausible(p, hints))]);
          const request = make(label);
          return { ...request, headers: { 'content-type': 'application/json' }, body: jsonObjectText(properties) };
        }),
      );
    }
  }
  const email = options.memberEmail ?? 'member@example.com';
  for (const [label, build] of hostileRequests(op, () => make('base'), email)) {
    drafts.push(draft(label, true, () => ({ ...build(), label })));
  }
  return drafts;
}

const UPLOAD: FilePart = { field: 'filename', filename: 'fuzz.txt', contentType: 'text/plain', data: 'hello' };

/** The URL and body of an operation's request; a `null` value leaves its parameter out. */
function encode(
  op: FuzzOperation,
  values: Map<FuzzParam, WireValue | null>,
): Pick<FuzzRequest, 'path' | 'headers' | 'body'> {
  let path = op.path;
  const query: Field[] = [];
  const body: Field[] = [];
  for (const [param, value] of values) {
    if (value === null) {
      // A path parameter cannot be left out; an empty segment is the closest.
      if (param.in === 'path') path = path.replace(`{${param.name}}`, '');
      continue;
    }
    const field: Field = { name: param.name, text: value.text, ...(value.encoded && { encoded: true }) };
    if (param.in === 'path') path = path.replace(`{${param.name}}`, value.encoded ? value.text : percent(value.text));
    else (param.in === 'query' ? query : body).push(field);
  }
  const url = query.length > 0 ? `${path}?${formText(query)}` : path;
  if (op.multipart) {
    const headers = { 'content-type': `multipart/form-data; boundary=${BOUNDARY}` };
    return { path: url, headers, body: multipartBody(body, [UPLOAD]) };
  }
  if (body.length === 0) return { path: url, headers: {} };
  return { path: url, headers: { 'content-type': 'application/x-www-form-urlencoded' }, body: formText(body) };
}
