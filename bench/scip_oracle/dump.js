// Reads an `index.scip` with the protobuf classes scip-typescript ships
// (generated from scip.proto) and prints what bench/scip_oracle.py needs as
// JSON: each document's occurrences, and where each symbol is defined.
//
// Usage: node dump.js INDEX.scip > OUT.json   (NODE_PATH = the bench's node_modules)
"use strict";
const fs = require("fs");
const { scip } = require("@sourcegraph/scip-typescript/dist/src/scip.js");

const DEFINITION = scip.SymbolRole.Definition;
const IMPORT = scip.SymbolRole.Import;

function main() {
  const index = scip.Index.deserializeBinary(fs.readFileSync(process.argv[2]));
  const documents = [];
  const definitions = {};
  for (const doc of index.documents) {
    const occurrences = [];
    for (const o of doc.occurrences) {
      // A range is [line, start, end] on one line or [line, start, endLine, end].
      const r = o.range;
      if (r.length !== 3) continue; // identifiers are on one line
      const roles = o.symbol_roles;
      const occurrence = {
        line: r[0],
        start: r[1],
        end: r[2],
        symbol: o.symbol,
        definition: (roles & DEFINITION) !== 0,
        import: (roles & IMPORT) !== 0,
      };
      occurrences.push(occurrence);
      if (occurrence.definition && !o.symbol.startsWith("local ")) {
        (definitions[o.symbol] ||= []).push([doc.relative_path, r[0], r[1]]);
      }
    }
    documents.push({ path: doc.relative_path, occurrences });
  }
  // A local symbol is defined in its own document: key it by the path.
  for (const doc of documents) {
    for (const o of doc.occurrences) {
      if (o.definition && o.symbol.startsWith("local ")) {
        (definitions[`${doc.path}\u0000${o.symbol}`] ||= []).push([doc.path, o.line, o.start]);
      }
    }
  }
  process.stdout.write(JSON.stringify({ documents, definitions }));
}

main();
