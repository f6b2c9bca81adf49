// ESLint rule: a relative import may not leave its package (`../../analysis/src/x.js` from core
// would bypass the package direction that no-restricted-imports enforces on package names).
import { dirname, resolve, sep } from 'node:path';

function packageRoot(file) {
  const m = /^(.*?[\\/](?:packages|apps)[\\/][^\\/]+|.*?[\\/]tooling)[\\/]/.exec(file);
  return m === null ? null : m[1];
}

export const noImportOutsidePackage = {
  meta: {
    type: 'problem',
    docs: { description: 'relative imports stay inside their package' },
    messages: { outside: "'{{spec}}' leaves the package {{pkg}}: import the other package by its name" },
    schema: [],
  },
  create(context) {
    const file = context.filename;
    const root = packageRoot(file);
    if (root === null) return {};
    const check = (node) => {
      const src = node.source;
      if (src == null || src.type !== 'Literal' || typeof src.value !== 'string' || !src.value.startsWith('.')) return;
      const target = resolve(dirname(file), src.value);
      if (target !== root && !target.startsWith(root + sep)) {
        context.report({ node: src, messageId: 'outside', data: { spec: src.value, pkg: root.split(sep).slice(-2).join('/') } });
      }
    };
    return { ImportDeclaration: check, ExportNamedDeclaration: check, ExportAllDeclaration: check, ImportExpression: check };
  },
};
