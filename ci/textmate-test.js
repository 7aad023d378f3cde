// The VS Code extension's TextMate grammar, run by the engine VS Code runs it with
// (vscode-textmate on vscode-oniguruma; `ci/textmate.sh` installs them and sets NODE_PATH).
// Every spec of the repository must tokenize without a pathologically slow line and end with
// every block the grammar opened closed again; a set of snippets must get the scopes themes
// colour by.
'use strict';

const fs = require('fs');
const path = require('path');
const vsctm = require('vscode-textmate');
const oniguruma = require('vscode-oniguruma');

const root = path.resolve(__dirname, '..');
const grammarFile = 'editors/vscode/syntaxes/covenant.tmLanguage.json';
// A line this slow means a rule backtracks catastrophically: once the engine has compiled
// the rules a line meets first, a line takes a few milliseconds at most, and the margin
// absorbs a busy machine.
const slowLineMs = 250;
// Build output, and `codegen/tests/ui/`'s specs, each broken on purpose for one diagnostic.
const skipped = ['target', 'codegen/tests/ui', '.git'];

let passed = 0;
let failed = 0;
function check(ok, what) {
  if (ok) {
    passed++;
  } else {
    failed++;
    console.log(`FAIL ${what}`);
  }
}

async function loadGrammar() {
  const wasm = fs.readFileSync(path.join(path.dirname(require.resolve('vscode-oniguruma')), 'onig.wasm'));
  await oniguruma.loadWASM(wasm.buffer.slice(wasm.byteOffset, wasm.byteOffset + wasm.byteLength));
  const registry = new vsctm.Registry({
    onigLib: Promise.resolve({
      createOnigScanner: (patterns) => new oniguruma.OnigScanner(patterns),
      createOnigString: (text) => new oniguruma.OnigString(text),
    }),
    loadGrammar: async (scopeName) => {
      if (scopeName !== 'source.covenant') return null;
      const file = path.join(root, grammarFile);
      return vsctm.parseRawGrammar(fs.readFileSync(file, 'utf8'), file);
    },
  });
  return registry.loadGrammar('source.covenant');
}

/** Each token of `text` as `{ text, scopes }`, line after line. */
function tokenize(grammar, text) {
  const out = [];
  let state = vsctm.INITIAL;
  for (const line of text.split('\n')) {
    const result = grammar.tokenizeLine(line, state);
    for (const t of result.tokens) {
      out.push({ text: line.slice(t.startIndex, t.endIndex), scopes: t.scopes });
    }
    state = result.ruleStack;
  }
  return out;
}

/** Checks that the `nth` token reading `token` (spaces aside) in `snippet` has a scope
 * containing `scope`, or, with `absent`, none does. */
function expectScope(grammar, snippet, token, scope, { nth = 0, absent = false } = {}) {
  const found = tokenize(grammar, snippet).filter((t) => t.text.trim() === token)[nth];
  const has = found !== undefined && found.scopes.some((s) => s.includes(scope));
  const what = `${JSON.stringify(snippet)}: \`${token}\` ${absent ? 'has no' : 'has a'} ${scope} scope`;
  check(found !== undefined && has !== absent, found ? `${what} (scopes: ${found.scopes.join(' ')})` : `${what} (no such token)`);
}

function snippets(grammar) {
  const is = (snippet, token, scope, options) => expectScope(grammar, snippet, token, scope, options);
  const isNot = (snippet, token, scope, options) => expectScope(grammar, snippet, token, scope, { ...options, absent: true });

  is('model User {', 'model', 'storage.type');
  is('model User {', 'User', 'entity.name.type');
  is('/// doc', 'doc', 'comment.line.documentation');
  is('// x', 'x', 'comment.line.double-slash');
  // Four slashes or more are a plain comment to the lexer.
  is('//// x', 'x', 'comment.line.double-slash');
  isNot('//// x', 'x', 'documentation');
  is('@source(toolkit)', 'source', 'entity.name.function.decorator');
  is('@source(toolkit)', '@', 'punctuation.definition.decorator');
  is('@deprecated("Old", use: provider)', 'use', 'variable.parameter');
  is('name?: string | null', 'name', 'variable.other.property');
  is('name?: string | null', 'string', 'support.type');
  is('name?: string | null', 'null', 'constant.language');
  is('name?: string | null', '|', 'keyword.operator');
  const endpoint = 'endpoint get_user: GET "/v2/user/{id}" {';
  is(endpoint, 'endpoint', 'storage.type');
  is(endpoint, 'get_user', 'entity.name.function');
  is(endpoint, 'GET', 'http-method');
  is(endpoint, '/v2/user/', 'string.quoted.double');
  is(endpoint, 'id', 'variable.parameter.placeholder');
  is(endpoint, 'id', 'string.quoted.double');
  // Keywords are names given meaning by position: here they are fields.
  is('type: string', 'type', 'variable.other.property');
  isNot('type: string', 'type', 'storage.type');
  is('    model?: Model', 'model', 'variable.other.property');
  is('type Snowflake = string', 'type', 'storage.type');
  is('type Snowflake = string', 'Snowflake', 'entity.name.type');
  is('query page?: int = 1', 'query', 'keyword.other');
  is('query page?: int = 1', 'page', 'variable.other.property');
  is('query page?: int = 1', 'int', 'support.type');
  is('query page?: int = 1', '1', 'constant.numeric');
  is('header "X-Request-Id"?: string', '"X-Request-Id"', 'variable.other.property');
  is('response 200: Book[] headers {', '200', 'constant.numeric');
  is('response 200: Book[] headers {', 'Book', 'entity.name.type');
  is('response 200: Book[] headers {', 'headers', 'keyword.other');
  is('error 4XX: Problem', '4XX', 'constant.numeric');
  is('body multipart {', 'multipart', 'storage.modifier');
  is('response 200: not_shown("Body")', 'not_shown', 'keyword.other.not-shown');
  is('metadata?: map<string, Tag>', 'map', 'support.type');
  is('metadata?: map<string, Tag>', 'Tag', 'entity.name.type');
  is('auth key: header "X-Key" {', 'key', 'entity.name.function');
  is('auth key: header "X-Key" {', 'header', 'support.constant');
  is('limit wait = 20 seconds {', 'wait', 'entity.name');
  is('limit wait = 20 seconds {', 'seconds', 'keyword.other.unit');
  is('title "A \\"quoted\\" word"', 'title', 'keyword.other.setting');
  is('title "A \\"quoted\\" word"', '\\"', 'constant.character.escape');
  // An enum's values are names even where they spell a keyword or a method.
  const enumDecl = 'open enum Resource subset of Parent {\n    body\n    GET\n    whoop_v2\n}';
  is(enumDecl, 'open', 'storage.modifier');
  is(enumDecl, 'Resource', 'entity.name.type');
  is(enumDecl, 'Parent', 'entity.name.type');
  is(enumDecl, 'body', 'variable.other.enummember');
  isNot(enumDecl, 'GET', 'http-method');
  is(enumDecl, 'whoop_v2', 'variable.other.enummember');
  is('states Order {\n    placed -> shipped on ship when "paid"\n}', '->', 'keyword.operator');
  is('states Order {\n    placed -> shipped on ship when "paid"\n}', 'when', 'keyword.other');
  is('changelog {\n    "2025-01": "Books"\n}', '2025-01', 'string.quoted.double');
  isNot('changelog {\n    "2025-01": "Books"\n}', '2025-01', 'variable.other.property');
}

/** Every `.covenant` file of the repository, but those of `skipped`. */
function specs(dir = root, found = []) {
  for (const entry of fs.readdirSync(dir, { withFileTypes: true })) {
    const file = path.join(dir, entry.name);
    const relative = path.relative(root, file).split(path.sep).join('/');
    if (skipped.includes(relative) || entry.name === 'node_modules') continue;
    if (entry.isDirectory()) specs(file, found);
    else if (entry.name.endsWith('.covenant')) found.push(relative);
  }
  return found.sort();
}

function wholeSpecs(grammar) {
  const rootDepth = grammar.tokenizeLine('', vsctm.INITIAL).ruleStack.depth;
  const files = specs();
  for (const required of ['spec/health.covenant', 'spec/examples/bookshop.covenant']) {
    check(files.includes(required), `${required} is among the specs`);
  }
  let slowestFile = { file: '', ms: -1, lines: 0 };
  let slowestLine = { where: '', ms: -1 };
  for (const file of files) {
    const lines = fs.readFileSync(path.join(root, file), 'utf8').split('\n');
    let state = vsctm.INITIAL;
    let slow = null;
    const start = performance.now();
    lines.forEach((line, index) => {
      const before = performance.now();
      state = grammar.tokenizeLine(line, state).ruleStack;
      const ms = performance.now() - before;
      if (ms > slowestLine.ms) slowestLine = { where: `${file}:${index + 1}`, ms };
      if (ms > slowLineMs && !slow) slow = `${file}:${index + 1} took ${ms.toFixed(0)} ms`;
    });
    const ms = performance.now() - start;
    if (ms > slowestFile.ms) slowestFile = { file, ms, lines: lines.length };
    check(slow === null, slow || file);
    check(state.depth === rootDepth, `${file} ends with ${state.depth - rootDepth} block(s) of the grammar still open`);
  }
  console.log(`${files.length} specs tokenized; slowest file: ${slowestFile.file} ` +
    `(${slowestFile.lines} lines, ${(slowestFile.ms / 1000).toFixed(2)} s); ` +
    `slowest line: ${slowestLine.where} (${slowestLine.ms.toFixed(1)} ms)`);
}

loadGrammar()
  .then((grammar) => {
    snippets(grammar);
    wholeSpecs(grammar);
  })
  .catch((error) => {
    failed++;
    console.log(`FAIL ${error.stack || error}`);
  })
  .finally(() => {
    console.log(`${passed} passed, ${failed} failed`);
    process.exitCode = failed === 0 ? 0 : 1;
  });
