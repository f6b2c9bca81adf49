// The files a browser entry reaches through its relative imports (static, dynamic and
// `export ... from`), found with TypeScript's own import scanner: the ESLint config gives each of
// them the no-`node:` rules, so a Node import anywhere below `@llm-nrm/adapters/browser` (or the
// other browser entries) is reported at the file and line that makes it.
import { existsSync, readFileSync } from 'node:fs';
import { dirname, relative, resolve } from 'node:path';
import ts from 'typescript';

/** Resolve a relative specifier the way NodeNext does for our sources (`./x.js` is `./x.ts`). */
function resolveLocal(from, spec) {
  const base = resolve(dirname(from), spec);
  const candidates = [base.replace(/\.js$/, '.ts'), base.replace(/\.mjs$/, '.mts'), base, `${base}.ts`, resolve(base, 'index.ts')];
  return candidates.find((c) => /\.(ts|mts|tsx)$/.test(c) && existsSync(c));
}

/** Repository-relative paths of `entries` and every source file they import, transitively. */
export function browserClosure(root, entries) {
  const seen = new Set();
  const stack = entries.map((e) => resolve(root, e));
  while (stack.length > 0) {
    const file = stack.pop();
    if (seen.has(file)) continue;
    seen.add(file);
    const { importedFiles } = ts.preProcessFile(readFileSync(file, 'utf8'), true, true);
    for (const { fileName } of importedFiles) {
      if (!fileName.startsWith('.')) continue;
      const next = resolveLocal(file, fileName);
      if (next !== undefined) stack.push(next);
    }
  }
  return [...seen].map((f) => relative(root, f)).sort();
}
