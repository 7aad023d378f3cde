// The grammar colours a spec on its own; everything else (diagnostics, hover, rename,
// formatting, the diff lens) comes from `covenant lsp`, started here over stdio.
'use strict';

const vscode = require('vscode');
const { LanguageClient, ExecuteCommandRequest } = require('vscode-languageclient/node');

// The server declares this command, so the client registers it with VS Code itself.
const DIFF_COMMAND = 'covenant.diff';

let client;
let starting;

function configuration() {
  return vscode.workspace.getConfiguration('covenant');
}

/** What the server reads from `initializationOptions` and `workspace/didChangeConfiguration`. */
function serverSettings() {
  const config = configuration();
  return {
    renameWireNames: config.get('renameWireNames', false),
    diffAgainst: config.get('diffAgainst', 'main'),
  };
}

function start() {
  const command = configuration().get('path') || 'covenant';
  client = new LanguageClient(
    'covenant',
    'Covenant',
    { command, args: ['lsp'] },
    {
      // Not git: or other virtual documents: a diff editor's old side would get diagnostics too.
      documentSelector: [
        { scheme: 'file', language: 'covenant' },
        { scheme: 'untitled', language: 'covenant' },
      ],
      initializationOptions: serverSettings(),
      synchronize: { configurationSection: 'covenant' },
      middleware: {
        // Run from the lens, the command's answer would be dropped: show the report instead.
        executeCommand: (name, args, next) => (name === DIFF_COMMAND ? showReport(args) : next(name, args)),
      },
    },
  );
  starting = client.start().catch((error) => {
    const action = 'Open Settings';
    vscode.window
      .showErrorMessage(
        `Could not start \`${command} lsp\` (${error.message || error}). Install covenant ` +
          '(`cargo install --path .` in its repository) or set `covenant.path` to its executable.',
        action,
      )
      .then((chosen) => chosen === action && vscode.commands.executeCommand('workbench.action.openSettings', 'covenant.path'));
    throw error;
  });
  return starting;
}

async function stop() {
  const [stopping, started] = [client, starting];
  client = undefined;
  starting = undefined;
  if (!stopping) return;
  // A client still starting cannot be stopped; one that failed to start has nothing to stop.
  await started.catch(() => {});
  if (stopping.isRunning()) await stopping.stop();
}

/** Asks the server for `diff`'s whole report on a document and opens it as Markdown. */
async function showReport(args) {
  try {
    await starting;
  } catch {
    // Already reported when the server failed to start.
  }
  if (!client || !client.isRunning()) {
    vscode.window.showErrorMessage('The covenant language server is not running: check `covenant.path`.');
    return undefined;
  }
  const offered = client.initializeResult?.capabilities.executeCommandProvider?.commands ?? [];
  if (!offered.includes(DIFF_COMMAND)) {
    vscode.window.showErrorMessage(
      `This covenant offers no \`${DIFF_COMMAND}\` command; a newer one does (\`covenant.path\` names the one used).`,
    );
    return undefined;
  }
  let report;
  try {
    report = await client.sendRequest(ExecuteCommandRequest.type, { command: DIFF_COMMAND, arguments: args });
  } catch (error) {
    vscode.window.showErrorMessage(`covenant diff: ${error.message || error}`);
    return undefined;
  }
  const document = await vscode.workspace.openTextDocument({ language: 'markdown', content: String(report) });
  await vscode.window.showTextDocument(document, { preview: false, viewColumn: vscode.ViewColumn.Beside });
  return report;
}

async function showDiff() {
  const editor = vscode.window.activeTextEditor;
  if (!editor || editor.document.languageId !== 'covenant') {
    vscode.window.showWarningMessage('Open a .covenant spec to see what diff would say about it.');
    return;
  }
  await showReport([editor.document.uri.toString(), serverSettings().diffAgainst]);
}

function activate(context) {
  context.subscriptions.push(
    vscode.commands.registerCommand('covenant.showDiff', showDiff),
    // Other settings reach the running server through `synchronize`; another command needs a new one.
    vscode.workspace.onDidChangeConfiguration(async (event) => {
      if (event.affectsConfiguration('covenant.path')) {
        await stop();
        start().catch(() => {});
      }
    }),
  );
  start().catch(() => {});
}

function deactivate() {
  return stop();
}

module.exports = { activate, deactivate };
