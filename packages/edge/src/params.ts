import type { TObject, TSchema } from '@sinclair/typebox';
import { TypeCompiler, type TypeCheck } from '@sinclair/typebox/compiler';
import { badRequest, missingArgument } from '@chat/protocol';
import { coerce, describeError } from './coerce.js';

/** One parameter of an operation, with its check compiled once at startup. */
interface CompiledParam {
  name: string;
  schema: TSchema;
  required: boolean;
  check: TypeCheck<TSchema>;
}

export interface CompiledParams {
  readonly list: readonly CompiledParam[];
}

export function compileParams(schema: TObject): CompiledParams {
  const required = new Set(schema.required ?? []);
  const list = Object.entries(schema.properties).map(([name, property]) => ({
    name,
    schema: property,
    required: required.has(name),
    check: TypeCompiler.Compile(property),
  }));
  return { list };
}

/**
 * Where the raw values of a request come from. Path parameters come from the
 * route; body parameters win over query parameters of the same name, as in
 * the reference implementation (Django's POST before GET).
 */
export interface ParamSources {
  path: Record<string, string>;
  body: Record<string, unknown>;
  query: Record<string, unknown>;
}

export interface ReadParams {
  params: Record<string, unknown>;
  /** Names the client sent that the operation does not know, sorted. */
  ignored: string[];
}

/**
 * Reads every declared parameter in declaration order, so that the first
 * missing or malformed one is the one reported, then lists the rest of what
 * the client sent as ignored.
 */
export function readParams(
  compiled: CompiledParams,
  aliases: Readonly<Record<string, readonly string[]>>,
  sources: ParamSources,
): ReadParams {
  const params: Record<string, unknown> = {};
  const used = new Set<string>(Object.keys(sources.path));
  for (const param of compiled.list) {
    const found = lookup(param.name, aliases[param.name] ?? [], sources);
    if (found === undefined) {
      if (param.required) throw missingArgument(param.name);
      const fallback = param.schema['default'] as unknown;
      if (fallback !== undefined) params[param.name] = structuredClone(fallback);
      continue;
    }
    used.add(found.name);
    const value = coerce(param.schema, found.raw, found.name);
    if (!param.check.Check(value)) {
      const error = param.check.Errors(value).First();
      throw badRequest(error ? describeError(found.name, error) : `Invalid ${found.name}`);
    }
    params[param.name] = value;
  }
  const sent = new Set([...Object.keys(sources.body), ...Object.keys(sources.query)]);
  const ignored = [...sent].filter((name) => !used.has(name)).sort();
  return { params, ignored };
}

function lookup(
  name: string,
  aliases: readonly string[],
  sources: ParamSources,
): { name: string; raw: unknown } | undefined {
  if (Object.hasOwn(sources.path, name)) return { name, raw: sources.path[name] };
  let found: { name: string; raw: unknown } | undefined;
  for (const candidate of [name, ...aliases]) {
    let raw = valueOf(sources.body, candidate);
    if (raw === undefined) raw = valueOf(sources.query, candidate);
    if (raw === undefined) continue;
    // Zulip refuses to guess between `topic` and its old name `subject`.
    if (found) throw badRequest(`Can't decide between '${found.name}' and '${candidate}' arguments`);
    found = { name: candidate, raw };
  }
  return found;
}

function valueOf(source: Record<string, unknown>, name: string): unknown {
  return Object.hasOwn(source, name) ? source[name] : undefined;
}
