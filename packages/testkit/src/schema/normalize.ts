import type { RawSchema } from './reference.js';

/**
 * Turns the reference's OpenAPI 3.0 schemas into plain JSON Schema that ajv
 * validates the way the reference's authors meant:
 *
 * - `allOf` is merged into one schema. Zulip builds every body as
 *   `allOf: [JsonSuccessBase, {additionalProperties: false, properties: ...}]`;
 *   validated literally, each member's `additionalProperties: false` rejects the
 *   fields the other members declare, so no real body could pass.
 * - `nullable: true` becomes a `null` member of `type` (or of `enum`, or an
 *   `anyOf` with `{type: 'null'}` where there is no type to extend).
 * - `oneOf` becomes `anyOf`: the reference's alternatives overlap (e.g. two
 *   `reaction` event shapes that differ only by `op`, or `integer` beside an
 *   object whose fields are all optional), and a body is right if it fits one.
 * - annotations (`description`, `example`, `deprecated`, `x-*`, ...) and the
 *   OpenAPI-only `format: binary` are dropped.
 */
export const REFERENCE_ID = 'zulip-reference';
const COMPONENT_PREFIX = '#/components/schemas/';

/** Kept as they are: they mean the same in OpenAPI 3.0 and in JSON Schema. */
const PLAIN_KEYWORDS = [
  'type',
  'enum',
  'required',
  'minimum',
  'maximum',
  'minLength',
  'maxLength',
  'pattern',
  'minItems',
  'maxItems',
  'uniqueItems',
  'minProperties',
  'maxProperties',
];

/** The keywords that constrain a value, besides allOf itself; the rest of a schema only annotates. */
const VALIDATING = new Set([
  ...PLAIN_KEYWORDS,
  'properties',
  'items',
  'additionalProperties',
  'nullable',
  'oneOf',
  'anyOf',
  '$ref',
]);

export function isObject(value: unknown): value is RawSchema {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** The ajv reference under which a component schema is registered. */
export function definitionRef(name: string): string {
  return `${REFERENCE_ID}#/definitions/${name.replaceAll('~', '~0').replaceAll('/', '~1')}`;
}

/** The component name behind a `$ref` produced by `definitionRef`, if it is one. */
export function definitionName(ref: unknown): string | undefined {
  const prefix = `${REFERENCE_ID}#/definitions/`;
  if (typeof ref !== 'string' || !ref.startsWith(prefix)) return undefined;
  return ref.slice(prefix.length).replaceAll('~1', '/').replaceAll('~0', '~');
}

function componentName(ref: string): string {
  if (!ref.startsWith(COMPONENT_PREFIX)) throw new Error(`unsupported $ref ${ref} in the reference`);
  return ref.slice(COMPONENT_PREFIX.length);
}

function asTypes(type: unknown): string[] {
  return Array.isArray(type) ? (type as string[]) : [type as string];
}

interface Merged {
  schema: RawSchema;
  /** Each member's `oneOf`/`anyOf`, all of which must be satisfied. */
  alternatives: unknown[][];
}

/** Merges flattened allOf members keyword by keyword; same-named properties are merged again when normalized. */
function mergeMembers(members: RawSchema[]): Merged {
  const schema: RawSchema = {};
  const alternatives: unknown[][] = [];
  const properties = new Map<string, unknown[]>();
  const items: unknown[] = [];
  const required = new Set<string>();
  for (const member of members) {
    for (const [key, value] of Object.entries(member)) {
      if (key === 'properties' && isObject(value)) {
        for (const [name, sub] of Object.entries(value)) properties.set(name, [...(properties.get(name) ?? []), sub]);
      } else if (key === 'required' && Array.isArray(value)) {
        for (const name of value) required.add(name as string);
      } else if (key === 'items') {
        items.push(value);
      } else if (key === 'oneOf' || key === 'anyOf') {
        if (Array.isArray(value)) alternatives.push(value);
      } else if (key === 'additionalProperties') {
        // The merged object is closed if any member closes it: that is what the member meant.
        const previous = schema['additionalProperties'];
        if (previous === false || value === false) schema['additionalProperties'] = false;
        else if (isObject(previous) && isObject(value)) schema['additionalProperties'] = { allOf: [previous, value] };
        else schema['additionalProperties'] = value;
      } else if (key === 'nullable') {
        // Zulip widens a base field by restating it with only `nullable: true`, so any member's nullable counts.
        schema['nullable'] = schema['nullable'] === true || value === true;
      } else if (key === 'type' && schema['type'] !== undefined) {
        const both = asTypes(schema['type']).filter((t) => asTypes(value).includes(t));
        if (both.length === 0)
          throw new Error(`allOf members disagree on type: ${String(schema['type'])} vs ${String(value)}`);
        schema['type'] = both.length === 1 ? both[0] : both;
      } else if (key === 'enum' && Array.isArray(schema['enum']) && Array.isArray(value)) {
        schema['enum'] = (schema['enum'] as unknown[]).filter((v) => value.includes(v));
      } else {
        schema[key] = value;
      }
    }
  }
  if (properties.size > 0) {
    schema['properties'] = Object.fromEntries(
      [...properties].map(([name, subs]) => [name, subs.length === 1 ? subs[0] : { allOf: subs }]),
    );
  }
  if (required.size > 0) schema['required'] = [...required];
  if (items.length > 0) schema['items'] = items.length === 1 ? items[0] : { allOf: items };
  return { schema, alternatives };
}

export class Normalizer {
  constructor(private readonly components: Record<string, RawSchema>) {}

  /** Every component schema, normalized, to be registered with ajv under `REFERENCE_ID`. */
  definitions(): Record<string, RawSchema> {
    return Object.fromEntries(Object.entries(this.components).map(([name, raw]) => [name, this.normalize(raw)]));
  }

  normalize(raw: unknown): RawSchema {
    if (!isObject(raw)) return {};
    // OpenAPI 3.0 ignores the siblings of a $ref, so the reference never relies on them.
    if (typeof raw['$ref'] === 'string') return { $ref: definitionRef(componentName(raw['$ref'])) };
    if (Array.isArray(raw['allOf'])) {
      // `allOf: [$ref]` with only annotations beside it is the reference's way to describe a $ref: keep the
      // reference, so ajv shares the compiled definition and errors can name it.
      const [only, ...others] = raw['allOf'] as unknown[];
      if (others.length === 0 && isObject(only) && Object.keys(raw).every((key) => !VALIDATING.has(key))) {
        return this.normalize(only);
      }
      const merged = mergeMembers(this.flatten(raw, new Set()));
      return this.convert(merged.schema, merged.alternatives);
    }
    const alternatives = [raw['oneOf'], raw['anyOf']].filter((alt): alt is unknown[] => Array.isArray(alt));
    return this.convert(raw, alternatives);
  }

  /** The allOf members of a schema, with referenced and nested allOfs inlined so they can be merged. */
  private flatten(raw: RawSchema, seen: Set<string>): RawSchema[] {
    if (typeof raw['$ref'] === 'string') {
      const name = componentName(raw['$ref']);
      const target = this.components[name];
      if (!target) throw new Error(`the reference has no schema ${name}`);
      if (seen.has(name)) throw new Error(`allOf cycle through ${name}`);
      return this.flatten(target, new Set(seen).add(name));
    }
    if (!Array.isArray(raw['allOf'])) return [raw];
    const { allOf, ...rest } = raw;
    return [rest, ...(allOf as unknown[]).filter(isObject).flatMap((member) => this.flatten(member, seen))];
  }

  private convert(raw: RawSchema, alternatives: unknown[][]): RawSchema {
    const out: RawSchema = {};
    for (const key of PLAIN_KEYWORDS) if (raw[key] !== undefined) out[key] = raw[key];
    if (isObject(raw['properties'])) {
      out['properties'] = Object.fromEntries(
        Object.entries(raw['properties']).map(([name, sub]) => [name, this.normalize(sub)]),
      );
    }
    if (raw['items'] !== undefined) out['items'] = this.normalize(raw['items']);
    const extra = raw['additionalProperties'];
    if (typeof extra === 'boolean') out['additionalProperties'] = extra;
    else if (isObject(extra)) out['additionalProperties'] = this.normalize(extra);
    // An empty list of alternatives (the reference has one) constrains nothing; ajv would reject it as a schema.
    const choices = alternatives.filter((alt) => alt.length > 0).map((alt) => alt.map((sub) => this.normalize(sub)));
    if (choices.length === 1) out['anyOf'] = choices[0];
    else if (choices.length > 1) out['allOf'] = choices.map((anyOf) => ({ anyOf }));
    return raw['nullable'] === true ? allowNull(out) : out;
  }
}

function allowNull(schema: RawSchema): RawSchema {
  if (schema['anyOf'] !== undefined || schema['allOf'] !== undefined) return { anyOf: [schema, { type: 'null' }] };
  const out = { ...schema };
  if (Array.isArray(out['enum']) && !out['enum'].includes(null)) out['enum'] = [...out['enum'], null];
  if (out['type'] !== undefined && !asTypes(out['type']).includes('null'))
    out['type'] = [...asTypes(out['type']), 'null'];
  return out;
}
