/**
 * Tree-sitter grammar of the covenant spec language (`.covenant` files).
 *
 * The authority on the syntax is the hand-written parser in `codegen/src/parser/` and the
 * lexer in `codegen/src/lexer.rs`; this grammar follows them so that every spec `covenant`
 * reads parses here without an ERROR node. Where the language is generic (the settings of
 * `service`, `api`, `auth`, `limit` and `rate_limit`) the grammar is too: a setting is any
 * `key value, value`, so a new setting needs no change here.
 *
 * Keywords are plain identifiers in the language, given meaning by position. With
 * `word: identifier`, tree-sitter only lexes a keyword where the parse state expects it, so a
 * field may still be called `type`, `model` or `query`.
 */

/// <reference types="tree-sitter-cli/dsl" />
// @ts-check

const PRIMITIVE_TYPES = [
  'string',
  'int',
  'number',
  'bool',
  'uuid',
  'date',
  'datetime',
  'email',
  'uri',
  'timezone',
  'object',
  'any',
  'bytes',
  'file',
];

// As `UNITS` in codegen/src/parser/mod.rs: a number followed by one of them is a quantity.
const UNITS = [
  'second',
  'seconds',
  'minute',
  'minutes',
  'hour',
  'hours',
  'day',
  'days',
  'miles',
  'characters',
  'items',
  'bytes',
  'kibibytes',
  'mebibytes',
];

const PREC = {
  // A list suffix binds tighter than `|`: `A | B[]` is `A | (B[])`.
  list: 2,
  union: 1,
};

/**
 * One or more `rule`s separated by commas. A member holding such a list is wrapped in
 * `prec.right`: the hand-written parser reads a comma after a value as the start of the next
 * value before it would read it as a member separator, and so does the grammar.
 *
 * @param {RuleOrLiteral} rule
 */
function commaSep1(rule) {
  return seq(rule, repeat(seq(',', rule)));
}

/**
 * `( a, b, )`: possibly empty, with an optional trailing comma.
 *
 * @param {RuleOrLiteral} rule
 */
function parenthesized(rule) {
  return seq('(', optional(seq(rule, repeat(seq(',', rule)), optional(','))), ')');
}

/**
 * `{ member* }`. Members may be separated by commas or by line breaks alone.
 *
 * @param {RuleOrLiteral} member
 */
function block(member) {
  return seq('{', repeat(choice(member, ',')), '}');
}

module.exports = grammar({
  name: 'covenant',

  word: $ => $.identifier,

  extras: $ => [/\s/, $.comment, $.doc_comment],

  supertypes: $ => [$._item, $._type, $._value],

  rules: {
    source_file: $ => repeat($._item),

    _item: $ => choice(
      $.service_declaration,
      $.api_declaration,
      $.auth_declaration,
      $.enum_declaration,
      $.model_declaration,
      $.envelope_declaration,
      $.type_alias_declaration,
      $.endpoint_declaration,
      $.event_declaration,
      $.limit_declaration,
      $.rate_limit_declaration,
      $.states_declaration,
      $.changelog_declaration,
      $.not_shown_declaration,
    ),

    // ---- items ---------------------------------------------------------------------------

    service_declaration: $ => seq(
      optional($._annotations),
      'service',
      field('name', $.identifier),
      field('body', $.settings_body),
    ),

    api_declaration: $ => seq(
      optional($._annotations),
      'api',
      field('name', $.identifier),
      field('body', $.api_body),
    ),

    auth_declaration: $ => seq(
      optional($._annotations),
      'auth',
      field('name', $.identifier),
      ':',
      choice(
        seq(
          field('location', alias($._keyed_auth_location, $.auth_location)),
          field('key', $.string),
        ),
        field('location', alias($._bare_auth_location, $.auth_location)),
      ),
      optional(field('body', $.settings_body)),
    ),

    enum_declaration: $ => seq(
      optional($._annotations),
      optional('open'),
      'enum',
      field('name', alias($.identifier, $.type_identifier)),
      optional(seq(':', field('representation', $._named_type))),
      optional(seq('subset', 'of', field('parent', alias($.identifier, $.type_identifier)))),
      field('body', $.enum_body),
    ),

    model_declaration: $ => seq(
      optional($._annotations),
      'model',
      field('name', alias($.identifier, $.type_identifier)),
      field('body', $.model_body),
    ),

    envelope_declaration: $ => seq(
      optional($._annotations),
      'envelope',
      field('name', alias($.identifier, $.type_identifier)),
      field('body', $.model_body),
    ),

    type_alias_declaration: $ => seq(
      optional($._annotations),
      'type',
      field('name', alias($.identifier, $.type_identifier)),
      '=',
      field('type', $._type),
    ),

    endpoint_declaration: $ => seq(
      optional($._annotations),
      'endpoint',
      field('name', $.identifier),
      ':',
      // Any name: an unknown method is a semantic error (E0128), not a syntax error.
      field('method', alias($.identifier, $.http_method)),
      field('path', $.string),
      field('body', $.endpoint_body),
    ),

    event_declaration: $ => seq(
      optional($._annotations),
      'event',
      field('name', $.identifier),
      ':',
      field('pattern', $.string),
      optional(field('body', $.event_body)),
    ),

    limit_declaration: $ => seq(
      optional($._annotations),
      'limit',
      field('name', $.identifier),
      optional(seq('=', field('value', choice($._value, $.not_shown_type)))),
      optional(field('body', $.settings_body)),
    ),

    rate_limit_declaration: $ => seq(
      optional($._annotations),
      'rate_limit',
      field('name', $.identifier),
      field('body', $.rate_limit_body),
    ),

    states_declaration: $ => seq(
      optional($._annotations),
      'states',
      field('name', $.identifier),
      field('body', $.states_body),
    ),

    changelog_declaration: $ => seq(
      optional($._annotations),
      'changelog',
      field('body', $.changelog_body),
    ),

    not_shown_declaration: $ => seq(
      optional($._annotations),
      'not_shown',
      field('description', $.string),
    ),

    // A header, query parameter or cookie is named; the other carriers are not.
    _keyed_auth_location: _ => choice('header', 'query', 'cookie'),

    _bare_auth_location: _ => choice('bearer', 'basic', 'oauth2'),

    // ---- settings ------------------------------------------------------------------------

    settings_body: $ => block($.setting),

    /** `key value, value`: every setting of service, api, auth, limit and rate_limit. */
    setting: $ => prec.right(seq(
      optional($._annotations),
      field('key', choice(
        $.identifier,
        // Words that open another member of the block are setting names where what follows
        // them fits no such member, as the hand-written parser reads them.
        alias('error', $.identifier),
        alias('header', $.identifier),
        alias('tier', $.identifier),
        alias('default', $.identifier),
        alias('not_shown', $.identifier),
      )),
      commaSep1(field('value', $._value)),
    )),

    api_body: $ => block(choice($.setting, $.error_clause, $.header_declaration)),

    /** `header "Name"?: T` on an api: a header every endpoint of it takes. */
    header_declaration: $ => seq(
      optional($._annotations),
      'header',
      $._field_body,
    ),

    // ---- enums ---------------------------------------------------------------------------

    enum_body: $ => block(choice($.enum_value, $.not_shown_clause)),

    enum_value: $ => seq(
      optional($._annotations),
      field('value', choice($.identifier, $.integer, $.string)),
    ),

    // ---- models and fields ---------------------------------------------------------------

    model_body: $ => block(choice($.field_declaration, $.not_shown_clause)),

    field_declaration: $ => seq(
      optional($._annotations),
      $._field_body,
    ),

    /** `name?: Type = default`, shared by fields, parameters, headers and placeholders. */
    _field_body: $ => seq(
      field('name', choice(
        $.identifier,
        $.string,
        // Words that open a member elsewhere in the block still name fields when a `:`
        // or `?` follows them.
        alias('not_shown', $.identifier),
        alias('placeholder', $.identifier),
      )),
      optional(field('optional', '?')),
      ':',
      field('type', $._type),
      optional(seq('=', field('default', $._value))),
    ),

    /**
     * `not_shown "what"`, and in a model `not_shown fields "what"`. In a rate limit it wins
     * over a setting named `not_shown`.
     */
    not_shown_clause: $ => prec(1, seq(
      optional($._annotations),
      'not_shown',
      optional('fields'),
      field('description', $.string),
    )),

    // ---- endpoints -----------------------------------------------------------------------

    endpoint_body: $ => block(choice(
      $.api_clause,
      $.auth_clause,
      $.public_clause,
      $.tags_clause,
      $.parameter_declaration,
      $.body_clause,
      $.response_clause,
      $.error_clause,
      $.rejections_clause,
      $.not_shown_clause,
    )),

    api_clause: $ => seq(
      optional($._annotations),
      'api',
      field('api', $.identifier),
    ),

    /**
     * `auth a | b` (any one of them), `auth a & b` (all of them), `auth? a | b`. A clause
     * never mixes `|` and `&`, and `auth?` schemes are sent one by one.
     */
    auth_clause: $ => seq(
      optional($._annotations),
      'auth',
      choice(
        seq(
          optional(field('optional', '?')),
          $.auth_reference,
          repeat(seq(field('operator', '|'), $.auth_reference)),
        ),
        seq($.auth_reference, repeat1(seq(field('operator', '&'), $.auth_reference))),
      ),
    ),

    /** `scheme` or `scheme(scope, "scope:with:colons")`. */
    auth_reference: $ => seq(
      field('scheme', $.identifier),
      optional(parenthesized(field('scope', choice($.identifier, $.string)))),
    ),

    public_clause: $ => seq(optional($._annotations), 'public'),

    tags_clause: $ => prec.right(seq(
      optional($._annotations),
      'tags',
      commaSep1(field('tag', choice($.identifier, $.string))),
    )),

    parameter_declaration: $ => seq(
      optional($._annotations),
      field('location', choice('path', 'query', 'header')),
      $._field_body,
    ),

    // `form` and `multipart` are read as the encoding whenever they follow `body`, so a model
    // of either name cannot be a body on its own here (`body form`), as it can for the
    // hand-written parser. No spec names a model so.
    body_clause: $ => seq(
      optional($._annotations),
      'body',
      optional(field('encoding', choice('form', 'multipart'))),
      $._body,
    ),

    /** A type with an optional media type, or `{ fields }` written in place. */
    _body: $ => choice(
      field('body', $.model_body),
      seq(field('type', $._type), optional(field('media', $.string))),
    ),

    response_clause: $ => prec.right(seq(
      optional($._annotations),
      'response',
      commaSep1(field('status', $.status)),
      optional(choice(
        field('body', $.model_body),
        seq(':', $._body),
      )),
      optional(field('headers', $.headers)),
    )),

    /** `error 404: Problem "application/problem+json" headers { … }`, on endpoints and apis. */
    error_clause: $ => seq(
      optional($._annotations),
      'error',
      field('status', $.status),
      optional(seq(':', field('type', $._type), optional(field('media', $.string)))),
      optional(field('headers', $.headers)),
    ),

    headers: $ => seq('headers', block($.field_declaration)),

    /**
     * `200`, `4XX` or `default`. After `error` in an api a number is a status, never the
     * value of a setting named `error`.
     */
    status: $ => prec(1, choice($.integer, $.status_class, 'default')),

    status_class: _ => token(/[0-9]+[Xx][Xx]/),

    rejections_clause: $ => seq(
      optional($._annotations),
      'rejections',
      field('model', alias($.identifier, $.type_identifier)),
    ),

    // ---- events --------------------------------------------------------------------------

    event_body: $ => block(choice(
      $.placeholder_declaration,
      $.field_declaration,
      $.not_shown_clause,
    )),

    placeholder_declaration: $ => seq(
      optional($._annotations),
      'placeholder',
      $._field_body,
    ),

    // ---- rate limits ---------------------------------------------------------------------

    rate_limit_body: $ => block(choice($.tier, $.setting, $.not_shown_clause)),

    /** `tier(count: 2, per: 1 minute)`, or `default(…)` for every key no tier names. */
    tier: $ => seq(
      optional($._annotations),
      field('kind', choice('tier', 'default')),
      field('arguments', $.argument_list),
    ),

    // ---- state machines ------------------------------------------------------------------

    states_body: $ => block(choice($.state, $.transition, $.not_shown_clause)),

    state: $ => seq(optional($._annotations), field('name', $.identifier)),

    /** `from -> to on trigger when "condition"`. */
    transition: $ => seq(
      optional($._annotations),
      field('from', $.identifier),
      '->',
      field('to', $.identifier),
      optional(seq('on', field('trigger', $.identifier))),
      optional(seq('when', field('condition', $.string))),
    ),

    // ---- changelog -----------------------------------------------------------------------

    changelog_body: $ => block($.changelog_entry),

    changelog_entry: $ => seq(
      optional($._annotations),
      field('date', $.string),
      ':',
      field('text', $.string),
    ),

    // ---- annotations ---------------------------------------------------------------------

    // One symbol for every item and member, so a run of annotations is read the same way
    // whatever it turns out to precede.
    _annotations: $ => repeat1($.annotation),

    annotation: $ => seq(
      '@',
      field('name', $.identifier),
      optional(field('arguments', $.argument_list)),
    ),

    argument_list: $ => parenthesized($.argument),

    /** `value` or `name: value`. */
    argument: $ => choice(
      seq(field('name', $.identifier), ':', field('value', $._value)),
      field('value', $._value),
    ),

    // ---- types ---------------------------------------------------------------------------

    _type: $ => choice($.union_type, $._type_atom),

    union_type: $ => prec.left(PREC.union, seq(
      $._type_atom,
      repeat1(seq('|', $._type_atom)),
    )),

    _type_atom: $ => choice(
      $._named_type,
      $.list_type,
      $.parenthesized_type,
      $.map_type,
      $.not_shown_type,
      $.null,
      $.boolean,
      // Constants: a field that always holds this one value.
      $.integer,
      $.string,
    ),

    _named_type: $ => choice(
      $.primitive_type,
      alias($.identifier, $.type_identifier),
      // `map` names a type of the spec's unless `<` follows it.
      alias('map', $.type_identifier),
    ),

    primitive_type: _ => choice(...PRIMITIVE_TYPES),

    list_type: $ => prec(PREC.list, seq(field('element', $._type_atom), '[', ']')),

    parenthesized_type: $ => seq('(', $._type, ')'),

    map_type: $ => seq(
      'map',
      '<',
      field('key', $._named_type),
      ',',
      field('value', $._type),
      '>',
    ),

    /** `not_shown` or `not_shown("what")`: a value whose shape the source leaves open. */
    not_shown_type: $ => prec.right(seq(
      'not_shown',
      optional(seq('(', field('description', $.string), ')')),
    )),

    // ---- values --------------------------------------------------------------------------

    _value: $ => choice(
      $.string,
      $.integer,
      $.float,
      $.quantity,
      $.boolean,
      $.null,
      $.reference,
      $.list,
    ),

    /** `20 seconds`, `256 kibibytes`. */
    quantity: $ => seq(
      field('amount', choice($.integer, $.float)),
      field('unit', $.unit),
    ),

    unit: _ => choice(...UNITS),

    /** A name, or a path through names: `deployed_client`, `list_books.per_page`. */
    reference: $ => prec.right(seq($.identifier, repeat(seq('.', $.identifier)))),

    list: $ => seq('[', optional(seq($._value, repeat(seq(',', $._value)), optional(','))), ']'),

    boolean: _ => choice('true', 'false'),

    null: _ => 'null',

    // ---- tokens --------------------------------------------------------------------------

    identifier: _ => /[A-Za-z_][A-Za-z0-9_]*/,

    integer: _ => token(/-?[0-9]+/),

    float: _ => token(/-?[0-9]+\.[0-9]+/),

    // One line, with backslash escapes.
    string: _ => token(seq('"', repeat(choice(/[^"\\\n]/, /\\[^\n]/)), '"')),

    // `///` then anything but a fourth slash: `////` is a plain comment, as in the lexer.
    doc_comment: _ => token(seq('///', optional(seq(/[^\/\n]/, /[^\n]*/)))),

    comment: _ => token(choice(
      seq('//', optional(seq(/[^\/\n]/, /[^\n]*/))),
      seq('////', /[^\n]*/),
    )),
  },
});
