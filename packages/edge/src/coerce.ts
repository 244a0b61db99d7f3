import { KindGuard, type TSchema } from '@sinclair/typebox';
import { ValueErrorType, type ValueError } from '@sinclair/typebox/errors';
import { Value } from '@sinclair/typebox/value';
import { badRequest } from '@chat/protocol';

/**
 * Zulip clients send every parameter as one string (a form field or a query
 * parameter) and JSON-encode the ones that are not strings: `to=[9]`,
 * `anchor=true`, `user_id=7`. This module turns such a raw string into the
 * value the parameter's schema describes. Values that are not strings (from
 * a JSON body) are already typed and pass through unchanged; the schema check
 * that follows judges them.
 */

const INTEGER = /^-?\d+$/;
const NUMBER = /^-?(?:0|[1-9]\d*)(?:\.\d+)?(?:[eE][+-]?\d+)?$/;

/** Thrown when a value cannot be read as its schema asks; `name` is the wire name. */
export function coerce(schema: TSchema, raw: unknown, name: string): unknown {
  if (typeof raw !== 'string') return raw;
  if (KindGuard.IsUnion(schema)) return coerceUnion(schema.anyOf, raw, name);
  if (KindGuard.IsInteger(schema)) return integerOf(raw);
  if (KindGuard.IsNumber(schema)) return NUMBER.test(raw) ? Number(raw) : raw;
  if (KindGuard.IsBoolean(schema)) return booleanOf(raw);
  if (KindGuard.IsNull(schema)) return raw === 'null' ? null : raw;
  if (KindGuard.IsLiteral(schema)) {
    const expected = schema.const;
    if (typeof expected === 'number') return NUMBER.test(raw) ? Number(raw) : raw;
    if (typeof expected === 'boolean') return booleanOf(raw);
    return raw;
  }
  if (isJsonEncoded(schema)) return parseJson(raw, name);
  // Strings (and anything we cannot type, e.g. Unknown) stay exactly as sent:
  // a topic named `"quoted"` or `123` must not change on the way in.
  return raw;
}

/** Lists and objects travel JSON-encoded inside one form field. */
export function isJsonEncoded(schema: TSchema): boolean {
  if (KindGuard.IsUnion(schema)) return schema.anyOf.some(isJsonEncoded);
  return (
    KindGuard.IsArray(schema) ||
    KindGuard.IsObject(schema) ||
    KindGuard.IsRecord(schema) ||
    KindGuard.IsTuple(schema) ||
    KindGuard.IsIntersect(schema) ||
    schema['type'] === 'array' ||
    schema['type'] === 'object'
  );
}

/**
 * A parameter such as `to` may be an integer, a list or a name. Typed
 * variants are tried first and the first reading that satisfies its variant
 * wins; a string variant is the fallback, so `to=general` stays a name while
 * `to=9` becomes a channel id.
 */
function coerceUnion(variants: TSchema[], raw: string, name: string): unknown {
  for (const variant of variants) {
    if (KindGuard.IsString(variant)) continue;
    let value: unknown;
    try {
      value = coerce(variant, raw, name);
    } catch {
      continue;
    }
    if (Value.Check(variant, value)) return value;
  }
  return raw;
}

/** Ids are below 2^53 in every client; a longer number would silently lose digits. */
function integerOf(raw: string): unknown {
  if (!INTEGER.test(raw)) return raw;
  const value = Number(raw);
  return Number.isSafeInteger(value) ? value : raw;
}

function booleanOf(raw: string): unknown {
  if (raw === 'true') return true;
  if (raw === 'false') return false;
  return raw;
}

function parseJson(raw: string, name: string): unknown {
  try {
    return JSON.parse(raw);
  } catch {
    throw badRequest(`${name} is not valid JSON`);
  }
}

/**
 * The first schema violation in Zulip's wording (its `typed_endpoint`
 * templates), naming the parameter and, inside JSON values, the element:
 * `to[0] is not an integer`, `draft["type"] is not a string`.
 */
export function describeError(name: string, error: ValueError): string {
  const where = name + pathSuffix(error.path);
  const schema = error.schema as Record<string, unknown>;
  switch (error.type) {
    case ValueErrorType.Integer:
      return `${where} is not an integer`;
    case ValueErrorType.Number:
      return `${where} is not a float`;
    case ValueErrorType.Boolean:
      return `${where} is not a boolean`;
    case ValueErrorType.String:
      return `${where} is not a string`;
    case ValueErrorType.Array:
    case ValueErrorType.Tuple:
      return `${where} is not a list`;
    case ValueErrorType.Object:
      return `${where} is not a dict`;
    case ValueErrorType.StringMaxLength:
      return `${where} is too long (limit: ${String(schema['maxLength'])} characters)`;
    case ValueErrorType.StringMinLength:
      return schema['minLength'] === 1 ? `${where} cannot be blank` : `${where} is too short.`;
    case ValueErrorType.IntegerMinimum:
    case ValueErrorType.IntegerExclusiveMinimum:
    case ValueErrorType.NumberMinimum:
    case ValueErrorType.NumberExclusiveMinimum:
      return `${where} is too small`;
    case ValueErrorType.IntegerMaximum:
    case ValueErrorType.IntegerExclusiveMaximum:
    case ValueErrorType.NumberMaximum:
    case ValueErrorType.NumberExclusiveMaximum:
      return `${where} is too large`;
    case ValueErrorType.ObjectRequiredProperty:
      return `${where} is missing`;
    case ValueErrorType.ObjectAdditionalProperties:
      return `Argument "${lastSegment(error.path)}" at ${where.slice(0, where.lastIndexOf('['))} is unexpected`;
    default:
      return `Invalid ${where}`;
  }
}

/** `/0/name` -> `[0]["name"]`, as Zulip renders the location of an error. */
function pathSuffix(path: string): string {
  if (path === '' || path === '/') return '';
  return path
    .slice(1)
    .split('/')
    .map((segment) => segment.replace(/~1/g, '/').replace(/~0/g, '~'))
    .map((segment) => `[${/^\d+$/.test(segment) ? segment : JSON.stringify(segment)}]`)
    .join('');
}

function lastSegment(path: string): string {
  return path.slice(path.lastIndexOf('/') + 1);
}
