// Every call site in the given JavaScript/TypeScript files, by the TypeScript
// parser (not evident's): the callee's last identifier, where it is, and the
// line the call starts on. Prints a JSON list.
//
// Usage: node calls.js ROOT FILE...   (NODE_PATH = the bench's node_modules)
"use strict";
const fs = require("fs");
const path = require("path");
const ts = require("typescript");

function calleeName(expression) {
  if (ts.isIdentifier(expression)) return expression;
  if (ts.isPropertyAccessExpression(expression)) return expression.name;
  if (ts.isParenthesizedExpression(expression)) return calleeName(expression.expression);
  return null;
}

function sitesOf(root, rel) {
  const text = fs.readFileSync(path.join(root, rel), "utf8");
  const kind = rel.endsWith(".ts") ? ts.ScriptKind.TS : rel.endsWith(".tsx") ? ts.ScriptKind.TSX : ts.ScriptKind.JS;
  const file = ts.createSourceFile(rel, text, ts.ScriptTarget.Latest, true, kind);
  const sites = [];
  const visit = (node) => {
    if (ts.isCallExpression(node) || ts.isNewExpression(node)) {
      const name = calleeName(node.expression);
      if (name && ts.isIdentifier(name)) {
        const at = file.getLineAndCharacterOfPosition(name.getStart(file));
        const from = file.getLineAndCharacterOfPosition(node.getStart(file));
        sites.push({ path: rel, line: at.line, start: at.character, name: name.text, call_line: from.line });
      }
    }
    ts.forEachChild(node, visit);
  };
  visit(file);
  return sites;
}

const [root, ...files] = process.argv.slice(2);
process.stdout.write(JSON.stringify(files.flatMap((rel) => sitesOf(root, rel))));
