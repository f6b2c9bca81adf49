#!/usr/bin/env node
// Import cycles among a package's own modules: every relative `import`, `import type`, `export ...
// from` and `import()` of the .ts files under a folder, as a graph; its strongly connected
// components of more than one module (or a module importing itself) are the cycles. Type imports
// count: a circle held only by types still ties the modules' meaning together and is one value
// import away from an evaluation-order bug. Exits 1 and prints each cycle's modules where any exist.
//   node tooling/importCycles.mjs packages/core/src
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

/** Every .ts file under dir (node_modules and dist left out). */
function tsFiles(dir) {
  const out = [];
  for (const name of readdirSync(dir)) {
    const p = join(dir, name);
    if (statSync(p).isDirectory()) {
      if (name !== 'node_modules' && name !== 'dist') out.push(...tsFiles(p));
    } else if (name.endsWith('.ts') && !name.endsWith('.d.ts')) out.push(p);
  }
  return out;
}

const SPECIFIERS = [/\bfrom\s+['"](\.{1,2}\/[^'"]+)['"]/g, /\bimport\s*\(\s*['"](\.{1,2}\/[^'"]+)['"]\s*\)/g, /^\s*import\s+['"](\.{1,2}\/[^'"]+)['"]/gm];

/** The module a relative specifier names (NodeNext style: './x.js' is x.ts; a folder its index.ts), or null outside the graph. */
function resolveSpecifier(from, spec) {
  const base = resolve(dirname(from), spec);
  for (const p of [base.replace(/\.js$/, '.ts'), `${base}.ts`, join(base, 'index.ts')]) if (existsSync(p) && statSync(p).isFile()) return p;
  return null;
}

/** The import graph of the .ts files under root: module -> the modules it imports. */
export function importGraph(root) {
  const graph = new Map();
  for (const file of tsFiles(root)) {
    const text = readFileSync(file, 'utf8');
    const deps = new Set();
    for (const re of SPECIFIERS)
      for (const m of text.matchAll(re)) {
        const to = resolveSpecifier(file, m[1]);
        if (to !== null) deps.add(to);
      }
    graph.set(file, deps);
  }
  return graph;
}

/** The cycles of a graph: Tarjan's strongly connected components of 2+ modules, or of one importing itself. */
export function importCycles(graph) {
  let index = 0;
  const idx = new Map();
  const low = new Map();
  const stack = [];
  const onStack = new Set();
  const cycles = [];
  const visit = (v) => {
    idx.set(v, index);
    low.set(v, index);
    index++;
    stack.push(v);
    onStack.add(v);
    for (const w of graph.get(v) ?? []) {
      if (!idx.has(w)) {
        visit(w);
        low.set(v, Math.min(low.get(v), low.get(w)));
      } else if (onStack.has(w)) low.set(v, Math.min(low.get(v), idx.get(w)));
    }
    if (low.get(v) === idx.get(v)) {
      const scc = [];
      let w;
      do {
        w = stack.pop();
        onStack.delete(w);
        scc.push(w);
      } while (w !== v);
      if (scc.length > 1 || graph.get(v)?.has(v)) cycles.push(scc.sort());
    }
  };
  for (const v of graph.keys()) if (!idx.has(v)) visit(v);
  return cycles;
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const root = resolve(process.argv[2] ?? 'src');
  const cycles = importCycles(importGraph(root));
  for (const c of cycles) console.error(`import cycle (${c.length} modules): ${c.map((f) => relative(root, f)).join(', ')}`);
  console.log(`${relative(process.cwd(), root) || '.'}: ${cycles.length} import cycle${cycles.length === 1 ? '' : 's'}`);
  if (cycles.length > 0) process.exitCode = 1;
}
