; JavaScript's grammar only (TypeScript wraps heritage in `extends_clause`, see typescript.scm).
(class_declaration name: (_) @name (class_heritage [(identifier) (member_expression)] @base)) @definition.class
