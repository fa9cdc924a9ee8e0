// The TypeScript language service's getDefinitionAtPosition on random
// identifier positions of a TypeScript code base.
// Usage: node oracle.js CORPUS_DIR COUNT SEED > positions.json
'use strict';
const fs = require('fs');
const path = require('path');
const ts = require('typescript');

const [corpus, countArg, seedArg] = process.argv.slice(2);
const count = Number(countArg || 1000);
let seed = Number(seedArg || 17) >>> 0;
// mulberry32: a small seeded generator, so a run can be repeated.
function random() {
  seed = (seed + 0x6d2b79f5) >>> 0;
  let t = seed;
  t = Math.imul(t ^ (t >>> 15), t | 1);
  t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
  return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
}

const root = path.resolve(corpus);
const files = [];
(function walk(dir) {
  for (const entry of fs.readdirSync(dir, { withFileTypes: true }).sort((a, b) => a.name.localeCompare(b.name))) {
    const full = path.join(dir, entry.name);
    if (entry.isDirectory() && entry.name !== 'node_modules' && !entry.name.startsWith('.')) walk(full);
    else if (entry.isFile() && full.endsWith('.ts') && !full.endsWith('.d.ts')) files.push(full);
  }
})(root);

const options = {
  target: ts.ScriptTarget.ES2020,
  module: ts.ModuleKind.ESNext,
  moduleResolution: ts.ModuleResolutionKind.Node10,
  strict: false,
  noEmit: true,
  lib: ['lib.es2020.d.ts', 'lib.dom.d.ts'],
};
const host = {
  getScriptFileNames: () => files,
  getScriptVersion: () => '1',
  getScriptSnapshot: (f) => (fs.existsSync(f) ? ts.ScriptSnapshot.fromString(fs.readFileSync(f, 'utf8')) : undefined),
  getCurrentDirectory: () => root,
  getCompilationSettings: () => options,
  getDefaultLibFileName: (o) => ts.getDefaultLibFilePath(o),
  fileExists: ts.sys.fileExists,
  readFile: ts.sys.readFile,
  readDirectory: ts.sys.readDirectory,
  directoryExists: ts.sys.directoryExists,
  getDirectories: ts.sys.getDirectories,
};
const service = ts.createLanguageService(host, ts.createDocumentRegistry());
const program = service.getProgram();

// Every identifier token of every file, then a uniform sample.
const identifiers = [];
for (const file of files) {
  const source = program.getSourceFile(file);
  (function visit(node) {
    if (node.kind === ts.SyntaxKind.Identifier) identifiers.push([file, node.getStart(source), node.text]);
    ts.forEachChild(node, visit);
  })(source);
}
for (let i = identifiers.length - 1; i > 0; i--) {
  const j = Math.floor(random() * (i + 1));
  [identifiers[i], identifiers[j]] = [identifiers[j], identifiers[i]];
}

const out = [];
for (const [file, start, name] of identifiers) {
  if (out.length >= count) break;
  const defs = service.getDefinitionAtPosition(file, start) || [];
  const inside = [];
  for (const d of defs) {
    if (!d.fileName.startsWith(root + path.sep)) continue;
    const target = program.getSourceFile(d.fileName);
    if (!target) continue;
    const line = target.getLineAndCharacterOfPosition(d.textSpan.start).line + 1;
    inside.push({ path: path.relative(root, d.fileName), line, name: d.name });
  }
  if (inside.length === 0) continue; // the oracle answers outside the code base, or not at all
  const source = program.getSourceFile(file);
  const at = source.getLineAndCharacterOfPosition(start);
  // Columns in characters (UTF-16 here; the sources are ASCII).
  out.push({ path: path.relative(root, file), line: at.line + 1, column: at.character + 1, word: name, oracle: inside });
}
process.stdout.write(JSON.stringify({ identifiers: identifiers.length, positions: out }));
