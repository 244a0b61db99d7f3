import { existsSync, readFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parse } from 'yaml';

/** The parts of an OpenAPI 3.0 document this module reads; everything else is left untyped. */
export type RawSchema = Record<string, unknown>;

export interface OpenApiDocument {
  paths: Record<string, Record<string, unknown>>;
  components: {
    schemas: Record<string, RawSchema>;
    responses?: Record<string, RawSchema>;
    parameters?: Record<string, RawSchema>;
  };
}

/** Walks up from this file to the monorepo root: the directory whose package.json declares workspaces. */
function repoRoot(): string {
  let dir = dirname(fileURLToPath(import.meta.url));
  for (;;) {
    const manifest = join(dir, 'package.json');
    if (existsSync(manifest) && 'workspaces' in (JSON.parse(readFileSync(manifest, 'utf8')) as object)) return dir;
    const parent = dirname(dir);
    if (parent === dir) throw new Error('no package.json with "workspaces" above ' + fileURLToPath(import.meta.url));
    dir = parent;
  }
}

/** The reference lives beside the repository, not in it, so it is never shipped nor edited with the code. */
export function referencePath(): string {
  const override = process.env['CHAT_REFERENCE_OPENAPI'];
  if (override) return resolve(override);
  return join(repoRoot(), '..', 'shared', 'reference', 'zulip-openapi.yaml');
}

let loaded: OpenApiDocument | undefined;

/** Parsed once per process: the file is ~33k lines and every test file asks for it. */
export function loadReference(): OpenApiDocument {
  if (loaded) return loaded;
  const file = referencePath();
  if (!existsSync(file)) {
    throw new Error(`reference OpenAPI document not found at ${file} (set CHAT_REFERENCE_OPENAPI to override)`);
  }
  const doc = parse(readFileSync(file, 'utf8')) as Partial<OpenApiDocument>;
  if (!doc.paths || !doc.components?.schemas)
    throw new Error(`${file} is not an OpenAPI document with paths and schemas`);
  loaded = doc as OpenApiDocument;
  return loaded;
}
