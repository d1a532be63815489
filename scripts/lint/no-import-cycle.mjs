/**
 * ESLint rule `local/no-import-cycle`: refuses an import that closes a cycle of the project's modules, type-only
 * imports included. A cycle of types still ties the modules together (each must be read to know the other) and is
 * where a value cycle starts; `import/no-cycle` of eslint-plugin-import ignores type-only imports, which is why
 * this rule exists. Only relative imports are followed (the project has no path aliases): every `import`,
 * `import type`, `export … from`, `import x = require()` and `import()` (TypeScript's `preProcessFile`).
 * The linted file's imports come from its syntax tree (it may be unsaved); the others' from disk, read once per run
 * and again when they change.
 */
import fs from 'node:fs';
import path from 'node:path';
import ts from 'typescript';

/** What resolving `./x` may find, in TypeScript's order. */
const CANDIDATES = ['.ts', '.tsx', '.d.ts', '/index.ts', ''];

/** file → its mtime and the relative specifiers it imports (read from disk). */
const importsOnDisk = new Map();

/** The relative specifiers that `text` imports. */
function relativeImports(text) {
  return ts
    .preProcessFile(text, true, false)
    .importedFiles.map((f) => f.fileName)
    .filter((name) => name.startsWith('./') || name.startsWith('../'));
}

function diskImports(file) {
  const stat = fs.statSync(file, { throwIfNoEntry: false });
  if (!stat?.isFile()) return [];
  const cached = importsOnDisk.get(file);
  if (cached?.mtimeMs === stat.mtimeMs) return cached.specifiers;
  const specifiers = relativeImports(fs.readFileSync(file, 'utf8'));
  importsOnDisk.set(file, { mtimeMs: stat.mtimeMs, specifiers });
  return specifiers;
}

/** The file `specifier` names from `importer`, or undefined (the linted file counts as existing: it may be unsaved). */
function resolve({ importer, specifier, linted }) {
  const base = path.resolve(path.dirname(importer), specifier);
  for (const ending of CANDIDATES) {
    const file = base + ending;
    if (file === linted || fs.statSync(file, { throwIfNoEntry: false })?.isFile()) return file;
  }
  return undefined;
}

/**
 * The shortest chain of modules from `first` (imported by `linted`) back to `linted`, or undefined. Breadth-first,
 * so the message names the smallest cycle.
 */
function cycleThrough({ linted, first }) {
  const cameFrom = new Map([[first, undefined]]);
  const queue = [first];
  for (let i = 0; i < queue.length; i += 1) {
    const file = queue[i];
    for (const specifier of diskImports(file)) {
      const next = resolve({ importer: file, specifier, linted });
      if (next === linted) {
        const chain = [];
        for (let at = file; at !== undefined; at = cameFrom.get(at)) chain.unshift(at);
        return chain;
      }
      if (next === undefined || cameFrom.has(next)) continue;
      cameFrom.set(next, file);
      queue.push(next);
    }
  }
  return undefined;
}

/** @type {import('eslint').Rule.RuleModule} */
const noImportCycle = {
  meta: {
    type: 'problem',
    docs: { description: 'Refuse imports, type-only ones included, that close a cycle of modules.' },
    schema: [],
    messages: {
      cycle:
        'Import cycle: {{chain}}. Move what both sides need into a module of its own (types included: ' +
        'a type-only cycle still ties the modules together).',
    },
  },
  create(context) {
    const linted = path.resolve(context.filename);
    const root = context.cwd;
    /** Reports the import of `specifier` at `node` when it closes a cycle; each imported module once. */
    const seen = new Set();
    function check(node, specifier) {
      if (typeof specifier !== 'string' || !(specifier.startsWith('./') || specifier.startsWith('../'))) return;
      const first = resolve({ importer: linted, specifier, linted });
      if (first === undefined || seen.has(first)) return;
      seen.add(first);
      const chain = first === linted ? [] : cycleThrough({ linted, first });
      if (!chain) return;
      const names = [linted, ...chain, linted].map((file) => path.relative(root, file));
      context.report({ node, messageId: 'cycle', data: { chain: names.join(' → ') } });
    }
    return {
      ImportDeclaration: (node) => check(node, node.source.value),
      ExportNamedDeclaration: (node) => node.source && check(node, node.source.value),
      ExportAllDeclaration: (node) => check(node, node.source.value),
      TSImportEqualsDeclaration: (node) =>
        node.moduleReference.type === 'TSExternalModuleReference' && check(node, node.moduleReference.expression.value),
      ImportExpression: (node) => node.source.type === 'Literal' && check(node, node.source.value),
    };
  },
};

export default { rules: { 'no-import-cycle': noImportCycle } };
