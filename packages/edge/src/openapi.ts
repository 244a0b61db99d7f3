import type { TSchema } from '@sinclair/typebox';
import { isJsonEncoded } from './coerce.js';
import type { Route } from './route.js';

export interface OpenApiInfo {
  title: string;
  version: string;
  description?: string;
}

type Json = Record<string, unknown>;

/**
 * The OpenAPI 3.0 document of the routes, from the same schemas that validate
 * requests, so the document cannot drift from the code. Parameters follow
 * Zulip's own document: query parameters for GET and DELETE, a form body for
 * the others, and JSON-encoded values marked `application/json`.
 */
export function buildOpenApi(routes: readonly Route[], info: OpenApiInfo): Json {
  const paths: Record<string, Record<string, Json>> = {};
  for (const route of routes) {
    (paths[route.path] ??= {})[route.method.toLowerCase()] = operation(route);
  }
  return {
    openapi: '3.0.3',
    info,
    servers: [{ url: '/api/v1' }],
    security: [{ basicAuth: [] }],
    paths,
    components: {
      securitySchemes: { basicAuth: { type: 'http', scheme: 'basic' } },
      schemas: {
        JsonError: {
          type: 'object',
          required: ['result', 'msg', 'code'],
          properties: {
            result: { type: 'string', enum: ['error'] },
            msg: { type: 'string' },
            code: { type: 'string' },
          },
          additionalProperties: true,
        },
      },
    },
  };
}

function operation(route: Route): Json {
  const op: Json = {
    operationId: operationId(route),
    summary: route.summary,
    description: route.description,
    tags: [...route.tags],
    parameters: parameters(route),
    responses: {
      '200': { description: 'Success.', content: { 'application/json': { schema: success(route) } } },
      default: {
        description: 'Error.',
        content: { 'application/json': { schema: { $ref: '#/components/schemas/JsonError' } } },
      },
    },
  };
  if (route.auth === 'none') op['security'] = [];
  if (route.auth === 'optional') op['security'] = [{ basicAuth: [] }, {}];
  const body = requestBody(route);
  if (body) op['requestBody'] = body;
  return op;
}

const inQuery = (route: Route) => route.method === 'GET' || route.method === 'DELETE';

function parameters(route: Route): Json[] {
  const required = new Set(route.params.required ?? []);
  const list: Json[] = route.pathParams.map((name) => ({
    name,
    in: 'path',
    required: true,
    ...described(route.params.properties[name]!),
    schema: openApiSchema(route.params.properties[name]!),
  }));
  if (!inQuery(route)) return list;
  for (const [name, schema] of bodyProperties(route)) {
    const param: Json = { name, in: 'query', required: required.has(name), ...described(schema) };
    // A JSON-encoded query parameter is described by content, as Zulip does.
    if (isJsonEncoded(schema)) param['content'] = { 'application/json': { schema: openApiSchema(schema) } };
    else param['schema'] = openApiSchema(schema);
    list.push(param);
  }
  return list;
}

function requestBody(route: Route): Json | undefined {
  if (inQuery(route)) return undefined;
  const properties: Json = {};
  const encoding: Json = {};
  for (const [name, schema] of bodyProperties(route)) {
    properties[name] = openApiSchema(schema);
    if (isJsonEncoded(schema)) encoding[name] = { contentType: 'application/json' };
  }
  const required = (route.params.required ?? []).filter((name) => !route.pathParams.includes(name));
  const schema: Json = { type: 'object', properties };
  if (required.length > 0) schema['required'] = required;
  if (route.files) {
    properties['filename'] = { type: 'string', format: 'binary' };
    return { content: { 'multipart/form-data': { schema } } };
  }
  if (Object.keys(properties).length === 0) return undefined;
  const media: Json = { schema };
  if (Object.keys(encoding).length > 0) media['encoding'] = encoding;
  return { content: { 'application/x-www-form-urlencoded': media } };
}

function bodyProperties(route: Route): [string, TSchema][] {
  return Object.entries(route.params.properties).filter(([name]) => !route.pathParams.includes(name));
}

function success(route: Route): Json {
  const fields = route.response ? (openApiSchema(route.response) as Json) : {};
  const properties = { result: { type: 'string', enum: ['success'] }, msg: { type: 'string' } };
  return {
    type: 'object',
    required: ['result', 'msg', ...((fields['required'] as string[] | undefined) ?? [])],
    properties: { ...properties, ...((fields['properties'] as Json | undefined) ?? {}) },
  };
}

function described(schema: TSchema): Json {
  return typeof schema.description === 'string' ? { description: schema.description } : {};
}

function operationId(route: Route): string {
  const words = route.path
    .replace(/[{}]/g, '')
    .split(/[^A-Za-z0-9]+/)
    .filter(Boolean);
  return [route.method.toLowerCase(), ...words].join('_');
}

/**
 * JSON Schema as TypeBox writes it, in the OpenAPI 3.0 dialect: `const`
 * becomes a one-value `enum`, a `null` variant becomes `nullable`, and the
 * TypeBox symbols disappear with the JSON round trip.
 */
export function openApiSchema(schema: TSchema): Json {
  return convert(JSON.parse(JSON.stringify(schema)) as Json);
}

function convert(node: Json): Json {
  const out: Json = {};
  for (const [key, value] of Object.entries(node)) {
    if (key === 'const') out['enum'] = [value];
    else if (key === 'properties' && isObject(value)) out[key] = mapValues(value, convert);
    else if ((key === 'items' || key === 'additionalProperties' || key === 'not') && isObject(value)) {
      out[key] = convert(value);
    } else if (key === 'patternProperties' && isObject(value)) {
      // 3.0 has no patternProperties: a record is an object of its value type.
      const [first] = Object.values(value);
      if (isObject(first)) out['additionalProperties'] = convert(first);
    } else if ((key === 'anyOf' || key === 'oneOf' || key === 'allOf') && Array.isArray(value)) {
      const variants = value.filter(isObject);
      const nonNull = variants.filter((v) => v['type'] !== 'null');
      if (nonNull.length < variants.length) out['nullable'] = true;
      const converted = nonNull.map(convert);
      if (key !== 'allOf' && converted.length === 1) Object.assign(out, converted[0]);
      else if (key !== 'allOf' && isEnumOfOneType(converted)) {
        // Type.Union of literals (an enum) reads best as one `enum`; of whole numbers, an integer one.
        const values = converted.flatMap((v) => v['enum'] as unknown[]);
        out['type'] = values.every(Number.isInteger) ? 'integer' : converted[0]!['type'];
        out['enum'] = values;
      } else out[key] = converted;
    } else if (key === 'items' && Array.isArray(value)) {
      // A tuple: 3.0 cannot say "this position has this type"; keep the union.
      out[key] = { anyOf: value.filter(isObject).map(convert) };
    } else if (key === 'examples' && Array.isArray(value)) out['example'] = value[0];
    else if (key !== '$schema' && key !== '$id') out[key] = value;
  }
  return out;
}

function isEnumOfOneType(variants: Json[]): boolean {
  const type = variants[0]?.['type'];
  return variants.every((v) => v['type'] === type && Array.isArray(v['enum']) && Object.keys(v).length === 2);
}

const isObject = (value: unknown): value is Json =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

function mapValues(record: Json, fn: (value: Json) => Json): Json {
  return Object.fromEntries(Object.entries(record).map(([k, v]) => [k, isObject(v) ? fn(v) : v]));
}
