// A checkout's built core as one namespace: its main entry with its `@llm-nrm/core/engine` entry
// merged in where it has one (checkouts older than that entry export everything from the main one),
// so that benches comparing two checkouts read the same names from both.
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';

export async function coreOf(root) {
  const dist = join(root, 'packages/core/dist');
  const main = await import(pathToFileURL(join(dist, 'index.js')).href);
  const engine = join(dist, 'engine.js');
  // Before the entry, dist/engine.js was the engine registry (getEngine, ...), which index.js already exports.
  return existsSync(engine) ? { ...main, ...(await import(pathToFileURL(engine).href)) } : { ...main };
}
