; JavaScript's parameters (TypeScript wraps them in required_parameter).
(formal_parameters (identifier) @local)
(formal_parameters (assignment_pattern left: (identifier) @local))
