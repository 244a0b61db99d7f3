import { readdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';

/**
 * The environment variable names a piece of source reads: `env.NAME`,
 * `process.env.NAME`, `env['NAME']`, and the helpers that take the
 * environment and a name (`integer(env, 'PORT', 9991)`, `required(env,
 * 'NATS_URL')`), the way config.ts and cluster-config.ts read them.
 * Comments are left out: a name mentioned in prose is not read.
 */
export function envNamesIn(source: string): Set<string> {
  const code = source.replace(/\/\*[\s\S]*?\*\//g, '').replace(/^\s*\/\/.*$/gm, '');
  const names = new Set<string>();
  const patterns = [
    /\benv\.([A-Z][A-Z0-9_]*)\b/g,
    /\benv\[\s*['"`]([A-Z][A-Z0-9_]*)['"`]\s*\]/g,
    /\benv,\s*['"`]([A-Z][A-Z0-9_]*)['"`]/g,
  ];
  for (const pattern of patterns) for (const match of code.matchAll(pattern)) names.add(match[1]!);
  return names;
}

/** The names read by the `.ts` files directly in each folder. */
export async function envNamesReadBy(folders: string[]): Promise<Set<string>> {
  const names = new Set<string>();
  for (const folder of folders) {
    for (const file of await readdir(folder)) {
      if (!file.endsWith('.ts') || file.endsWith('.d.ts')) continue;
      for (const name of envNamesIn(await readFile(join(folder, file), 'utf8'))) names.add(name);
    }
  }
  return names;
}
