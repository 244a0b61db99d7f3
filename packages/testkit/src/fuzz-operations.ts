/**
 * The operations of an OpenAPI 3.0 document as the fuzzer needs them: each
 * parameter with where it travels (path, query, form body), whether it is
 * required and JSON-encoded, and a plausible value to send when another
 * parameter is the one under attack.
 */
import { jsonObjectText } from './fuzz-encode.js';
import type { WireValue } from './fuzz-values.js';

type Json = Record<string, unknown>;

export interface FuzzParam {
  name: string;
  in: 'path' | 'query' | 'body';
  required: boolean;
  /** Lists and objects travel JSON-encoded inside one field. */
  json: boolean;
  schema: Json;
}

export interface FuzzOperation {
  method: string;
  /** The document's template, e.g. `/users/{user_id}`. */
  path: string;
  params: FuzzParam[];
  /** The body is multipart (file uploads). */
  multipart: boolean;
  /** False when the operation needs no credentials (security: []). */
  authenticated: boolean;
}

const METHODS = ['get', 'post', 'put', 'patch', 'delete'];

export function operationsOf(doc: Json): FuzzOperation[] {
  const operations: FuzzOperation[] = [];
  for (const [path, item] of Object.entries((doc['paths'] ?? {}) as Record<string, Json>)) {
    for (const method of METHODS) {
      const op = item[method] as Json | undefined;
      if (op) operations.push(operationOf(method.toUpperCase(), path, op));
    }
  }
  return operations;
}

function operationOf(method: string, path: string, op: Json): FuzzOperation {
  const params: FuzzParam[] = [];
  for (const p of (op['parameters'] ?? []) as Json[]) {
    const content = p['content'] as Record<string, Json> | undefined;
    const schema = (p['schema'] ?? content?.['application/json']?.['schema'] ?? {}) as Json;
    params.push({
      name: String(p['name']),
      in: p['in'] === 'path' ? 'path' : 'query',
      required: p['required'] === true,
      json: content !== undefined,
      schema,
    });
  }
  const content = ((op['requestBody'] as Json | undefined)?.['content'] ?? {}) as Record<string, Json>;
  const [mediaType, media] = Object.entries(content)[0] ?? [];
  const schema = (media?.['schema'] ?? {}) as Json;
  const required = new Set((schema['required'] ?? []) as string[]);
  const encoding = (media?.['encoding'] ?? {}) as Record<string, Json>;
  for (const [name, property] of Object.entries((schema['properties'] ?? {}) as Record<string, Json>)) {
    if (property['format'] === 'binary') continue;
    const json = encoding[name]?.['contentType'] === 'application/json';
    params.push({ name, in: 'body', required: required.has(name), json, schema: property });
  }
  const security = op['security'] as unknown[] | undefined;
  return {
    method,
    path,
    params,
    multipart: mediaType === 'multipart/form-data',
    authenticated: !(Array.isArray(security) && security.length === 0),
  };
}

/**
 * A valid-looking value for a parameter: the test's hint for its name when
 * the schema admits it, else the default, the first enum value, or the
 * simplest value of its type.
 */
export function plausible(param: FuzzParam, hints: Record<string, unknown>): unknown {
  const hint = hints[param.name];
  if (hint !== undefined && admits(param.schema, hint)) return hint;
  return sample(param.schema);
}

function sample(schema: Json): unknown {
  if (schema['default'] !== undefined) return schema['default'];
  const choices = schema['enum'] as unknown[] | undefined;
  if (choices && choices.length > 0) return choices[0];
  const variants = schema['anyOf'] as Json[] | undefined;
  if (variants && variants.length > 0) return sample(variants[0]!);
  switch (schema['type']) {
    case 'integer':
    case 'number':
      return typeof schema['minimum'] === 'number' ? Math.max(1, schema['minimum']) : 1;
    case 'boolean':
      return true;
    case 'array':
      return [];
    case 'object': {
      const properties = (schema['properties'] ?? {}) as Record<string, Json>;
      const out: Json = {};
      for (const name of (schema['required'] ?? []) as string[]) out[name] = sample(properties[name] ?? {});
      return out;
    }
    default:
      return 'fuzz'.padEnd(typeof schema['minLength'] === 'number' ? schema['minLength'] : 4, 'z');
  }
}

/** A rough check, enough to keep a hint for `to` off a parameter of another type with the same name. */
function admits(schema: Json, value: unknown): boolean {
  const choices = schema['enum'] as unknown[] | undefined;
  if (choices) return choices.includes(value);
  const variants = schema['anyOf'] as Json[] | undefined;
  if (variants) return variants.some((v) => admits(v, value));
  switch (schema['type']) {
    case 'integer':
      return Number.isInteger(value);
    case 'number':
      return typeof value === 'number';
    case 'boolean':
      return typeof value === 'boolean';
    case 'string':
      return typeof value === 'string';
    case 'array':
      return Array.isArray(value);
    case 'object':
      return typeof value === 'object' && value !== null && !Array.isArray(value);
    default:
      return true;
  }
}

/** The text of a value in a form field or query parameter, as Zulip clients write it: strings as they are. */
export function wireText(value: unknown): string {
  return typeof value === 'string' ? value : JSON.stringify(value);
}

/**
 * For a parameter holding objects (or a list of them, like `subscriptions` or
 * `drafts`): a plausible object with one property at a time replaced by each
 * hostile JSON text, so that the attack gets past the outer shape.
 */
export function nestedValues(param: FuzzParam, hostile: readonly WireValue[]): WireValue[] {
  const variants = (param.schema['anyOf'] as Json[] | undefined) ?? [param.schema];
  const list = variants.find((v) => v['type'] === 'array' && (v['items'] as Json | undefined)?.['properties']);
  const object = list ? (list['items'] as Json) : variants.find((v) => v['type'] === 'object' && v['properties']);
  if (!object) return [];
  const plain = sample({ ...object, required: Object.keys(object['properties'] as Json) }) as Json;
  const out: WireValue[] = [];
  for (const property of Object.keys(plain)) {
    for (const value of hostile) {
      const entries = Object.entries(plain).map(([name, v]): [string, string] => [
        name,
        name === property ? value.text : JSON.stringify(v),
      ]);
      const text = jsonObjectText(entries);
      out.push({ label: `${property} inside: ${value.label}`, text: list ? `[${text}]` : text });
    }
  }
  return out;
}
