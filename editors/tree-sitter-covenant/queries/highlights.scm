; Highlights of the covenant spec language.
;
; Where several patterns capture one node, the later one wins (tree-sitter-highlight and
; Neovim alike), so the patterns that only look at a node's kind come first and the ones that
; look at its place after them.

; ---- by kind ------------------------------------------------------------------------------

(comment) @comment

(doc_comment) @comment.documentation

(string) @string

(integer) @number

(float) @number

(status_class) @number

(boolean) @constant.builtin

(null) @constant.builtin

(unit) @keyword

(primitive_type) @type.builtin

(type_identifier) @type

(reference
  (identifier) @variable)

(auth_location) @keyword

[
  "service"
  "api"
  "auth"
  "open"
  "enum"
  "subset"
  "of"
  "model"
  "envelope"
  "type"
  "endpoint"
  "event"
  "limit"
  "rate_limit"
  "states"
  "changelog"
  "not_shown"
  "fields"
  "public"
  "tags"
  "path"
  "query"
  "header"
  "body"
  "form"
  "multipart"
  "response"
  "error"
  "headers"
  "rejections"
  "placeholder"
  "on"
  "when"
] @keyword

[
  "|"
  "&"
  "?"
  "="
  "->"
] @operator

[
  ":"
  ","
  "."
] @punctuation.delimiter

[
  "{"
  "}"
  "("
  ")"
  "["
  "]"
  "<"
  ">"
] @punctuation.bracket

; ---- by place -----------------------------------------------------------------------------

(map_type
  "map" @type.builtin)

(status
  "default" @constant.builtin)

(annotation
  "@" @attribute
  name: (identifier) @attribute)

(argument
  name: (identifier) @variable.parameter)

(tier
  kind: _ @function.builtin)

(service_declaration
  name: (identifier) @module)

(api_declaration
  name: (identifier) @module)

(api_clause
  api: (identifier) @module)

(auth_declaration
  name: (identifier) @constant)

(auth_reference
  scheme: (identifier) @constant)

(auth_reference
  scope: (_) @string.special)

(endpoint_declaration
  name: (identifier) @function)

(endpoint_declaration
  method: (http_method) @constant.builtin)

(endpoint_declaration
  path: (string) @string.special)

(event_declaration
  name: (identifier) @function)

(event_declaration
  pattern: (string) @string.special)

(limit_declaration
  name: (identifier) @constant)

(rate_limit_declaration
  name: (identifier) @constant)

(states_declaration
  name: (identifier) @type)

(state
  name: (identifier) @constant)

(transition
  from: (identifier) @constant)

(transition
  to: (identifier) @constant)

(transition
  trigger: (identifier) @function)

(changelog_entry
  date: (string) @string.special)

(enum_value
  value: (identifier) @constant)

(tags_clause
  tag: (identifier) @constant)

(setting
  key: (identifier) @property)

; In a settings block `not_shown "…"` is a setting by its grammar, a note by its meaning.
(setting
  key: (identifier) @keyword
  (#eq? @keyword "not_shown"))

; An api's `rejections Model` names a model.
(setting
  key: (identifier) @_key
  value: (reference
    .
    (identifier) @type
    .)
  (#eq? @_key "rejections"))

(field_declaration
  name: (_) @property)

(parameter_declaration
  name: (_) @variable.parameter)

(header_declaration
  name: (_) @variable.parameter)

(placeholder_declaration
  name: (_) @variable.parameter)
