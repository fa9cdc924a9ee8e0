; JavaScript's parameters (TypeScript wraps them in required_parameter).
(formal_parameters (identifier) @local)
(formal_parameters (assignment_pattern left: (identifier) @local))

; `y = 1` where nothing declares `y`: bound in its function, as a `var` is
; (TypeScript refuses an undeclared name: there it binds nothing).
(assignment_expression left: (identifier) @local.implicit)
