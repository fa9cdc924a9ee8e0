; TypeScript's parameters (added to javascript-locals.scm).
(required_parameter pattern: (identifier) @local)
(optional_parameter pattern: (identifier) @local)
