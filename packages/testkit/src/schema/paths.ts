import { isObject } from './normalize.js';
import type { OpenApiDocument, RawSchema } from './reference.js';

export interface Operation {
  /** The reference's templated path, e.g. `/messages/{message_id}`. */
  template: string;
  method: string;
  operation: RawSchema;
}

const API_PREFIX = '/api/v1';

/** The concrete path as the reference writes paths: no `/api/v1`, no query, no trailing slash. */
export function referencePathOf(path: string): string {
  let bare = path.split('?')[0]!;
  if (bare === API_PREFIX || bare.startsWith(API_PREFIX + '/')) bare = bare.slice(API_PREFIX.length);
  if (!bare.startsWith('/')) bare = '/' + bare;
  return bare.length > 1 ? bare.replace(/\/+$/, '') : bare;
}

/** The declared schema type of a path parameter, so `/users/17` and `/users/iago@zulip.com` pick different templates. */
function parameterType(doc: OpenApiDocument, pathItem: RawSchema, operation: RawSchema, name: string): unknown {
  const declared = [...asList(operation['parameters']), ...asList(pathItem['parameters'])].map((p) => {
    const ref = isObject(p) ? p['$ref'] : undefined;
    return typeof ref === 'string' ? doc.components.parameters?.[ref.split('/').pop()!] : p;
  });
  const parameter = declared.find((p) => isObject(p) && p['in'] === 'path' && p['name'] === name);
  return isObject(parameter) && isObject(parameter['schema']) ? parameter['schema']['type'] : undefined;
}

function asList(value: unknown): unknown[] {
  return Array.isArray(value) ? value : [];
}

/**
 * How specifically a template segment matches a concrete one: a literal (2) beats a parameter declared as an
 * integer (1), which beats any other parameter (0); undefined when it does not match. The middle rank tells
 * `/users/{user_id}` from `/users/{email}`, which are otherwise the same template.
 */
function segmentRank(doc: OpenApiDocument, op: Operation, pattern: string, segment: string): number | undefined {
  const template = /^\{(.+)\}$/.exec(pattern);
  if (!template) return pattern === segment ? 2 : undefined;
  if (segment === '') return undefined;
  if (parameterType(doc, doc.paths[op.template]!, op.operation, template[1]!) !== 'integer') return 0;
  return /^-?\d+$/.test(segment) ? 1 : undefined;
}

/** Negative when `a` is the better match: the first segment where the ranks differ decides. */
function compareRanks(a: number[], b: number[]): number {
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return b[i]! - a[i]!;
  return 0;
}

/** Finds the reference operation serving a concrete request, or undefined when the reference has none. */
export function findOperation(doc: OpenApiDocument, method: string, path: string): Operation | undefined {
  const verb = method.toLowerCase();
  const segments = referencePathOf(path).split('/').map(decodeSegment);
  const candidates: { op: Operation; ranks: number[] }[] = [];
  for (const [template, pathItem] of Object.entries(doc.paths)) {
    const operation = pathItem[verb];
    const patterns = template.split('/');
    if (!isObject(operation) || patterns.length !== segments.length) continue;
    const op = { template, method: verb, operation };
    const ranks = patterns.map((pattern, i) => segmentRank(doc, op, pattern, segments[i]!));
    if (ranks.every((rank) => rank !== undefined)) candidates.push({ op, ranks: ranks as number[] });
  }
  candidates.sort((a, b) => compareRanks(a.ranks, b.ranks));
  return candidates[0]?.op;
}

function decodeSegment(segment: string): string {
  try {
    return decodeURIComponent(segment);
  } catch {
    return segment;
  }
}
