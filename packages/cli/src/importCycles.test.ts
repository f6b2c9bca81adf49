// No package's source has a runtime import cycle. A cycle works until the wrong module is loaded
// first and then reads a binding before it is initialised (an `undefined` constant, a class used
// before its definition), depending on which entry a user imports. Type-only imports are erased
// by the compiler and do not count. The imports are read with the TypeScript parser, not regexes.
import { existsSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';
import { tempDir } from '@llm-nrm/tooling/test';

const repo = resolve(dirname(fileURLToPath(import.meta.url)), '../../..');

function sources(dir: string, out: string[] = []): string[] {
  for (const e of readdirSync(dir, { withFileTypes: true })) {
    const p = join(dir, e.name);
    if (e.isDirectory()) sources(p, out);
    else if (/\.ts$/.test(e.name) && !/\.(test|d)\.ts$/.test(e.name)) out.push(p);
  }
  return out;
}

/** Relative modules a file loads at run time (value imports and re-exports). */
function runtimeImports(file: string): string[] {
  const sf = ts.createSourceFile(file, readFileSync(file, 'utf8'), ts.ScriptTarget.Latest, false);
  const out: string[] = [];
  for (const st of sf.statements) {
    let spec: ts.Expression | undefined;
    if (ts.isImportDeclaration(st)) {
      const c = st.importClause;
      const typeOnly =
        c !== undefined &&
        (c.isTypeOnly ||
          (c.name === undefined &&
            c.namedBindings !== undefined &&
            ts.isNamedImports(c.namedBindings) &&
            c.namedBindings.elements.length > 0 &&
            c.namedBindings.elements.every((e) => e.isTypeOnly)));
      if (!typeOnly) spec = st.moduleSpecifier;
    } else if (ts.isExportDeclaration(st) && !st.isTypeOnly) spec = st.moduleSpecifier;
    if (spec && ts.isStringLiteral(spec) && spec.text.startsWith('.')) {
      const target = resolve(dirname(file), spec.text.replace(/\.js$/, '.ts'));
      if (existsSync(target)) out.push(target);
    }
  }
  return out;
}

/** Every cycle found by a depth-first walk, as a readable path. */
function importCycles(root: string): string[] {
  const graph = new Map(sources(root).map((f) => [f, runtimeImports(f)]));
  const state = new Map<string, 1 | 2>();
  const stack: string[] = [];
  const cycles: string[] = [];
  const visit = (f: string): void => {
    state.set(f, 1);
    stack.push(f);
    for (const g of graph.get(f) ?? []) {
      if (state.get(g) === 1) cycles.push([...stack.slice(stack.indexOf(g)), g].map((x) => relative(root, x)).join(' -> '));
      else if (state.get(g) === undefined) visit(g);
    }
    stack.pop();
    state.set(f, 2);
  };
  for (const f of graph.keys()) if (state.get(f) === undefined) visit(f);
  return cycles;
}

const roots = ['packages', 'apps'].flatMap((d) =>
  readdirSync(join(repo, d), { withFileTypes: true })
    .filter((e) => e.isDirectory() && existsSync(join(repo, d, e.name, 'src')))
    .map((e) => join(d, e.name, 'src')),
);

describe('import cycles', () => {
  it('finds a cycle when there is one, and none through type-only imports', () => {
    const tmp = tempDir();
    try {
      const w = (name: string, text: string) => writeFileSync(join(tmp.dir, name), text);
      w('a.ts', "import { b } from './b.js';\nexport const a = () => b;\n");
      w('b.ts', "export { a as again } from './a.js';\nexport const b = 1;\n");
      w('c.ts', "import type { D } from './d.js';\nimport { type E } from './d.js';\nexport type C = D | E;\nexport const c = 1;\n");
      w('d.ts', "import { c } from './c.js';\nexport type D = number;\nexport type E = string;\nexport const d = c;\n");
      expect(importCycles(tmp.dir)).toEqual(['a.ts -> b.ts -> a.ts']);
    } finally {
      tmp.cleanup();
    }
  });

  it.each(roots)('%s has no runtime import cycle', (root) => {
    expect(importCycles(join(repo, root))).toEqual([]);
  });
});
