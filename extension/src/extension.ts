// Wires the flows to VS Code. Activation only sets up (a status bar item,
// commands, the MCP provider, then the slower work in the background:
// finding the sidecar, reading argv.json, publishing VS Code's CDP port,
// watching the state folder, checking Claude Code's entries); nothing here
// blocks VS Code's start. Each setup step is independent (setup.ts): a
// failure is logged, shown in the status bar and in one notification, and the
// other steps run. The context (ctx.ts) owns the lifecycle (the two
// disposal lifetimes, the coalesced setup); each piece of state has one
// owner among the flows (flows/*.ts); each command is one flow in its own
// module (commands/*.ts), registered here by name.
import * as vscode from 'vscode';
import { addToClaudeCode } from './commands/addToClaudeCode';
import { control, toggleHeadless } from './commands/control';
import { nativeCdp } from './commands/nativeCdp';
import { openPreview } from './commands/openPreview';
import { registerNativeHostCommand } from './commands/registerNativeHost';
import { removeFromClaudeCode } from './commands/removeFromClaudeCode';
import { repairClaudeCode } from './commands/repairClaudeCode';
import { retry, retrySetup } from './commands/retrySetup';
import { showActions } from './commands/showActions';
import { SECTION } from './config';
import { Cmd, Ctx } from './ctx';
import { offerClaudeCode } from './flows/claudeCode';
import { registerMcp } from './flows/mcp';
import { notifyProblems } from './flows/setupNotice';
import { ActionId, commandOf } from './statusBar';

const WALKTHROUGH = 'browser-coordinator.browser-coordinator#browserCoordinator.start';

/** Every command, by the status bar's action ids (package.json contributes.commands). */
const commands: Record<ActionId, (ctx: Ctx) => Cmd> = {
  launch: control('launch'),
  stop: control('stop'),
  restart: control('restart'),
  toggleHeadless,
  openPreview,
  enableNativeCdp: nativeCdp(true),
  disableNativeCdp: nativeCdp(false),
  addToClaudeCode,
  repairClaudeCode,
  removeFromClaudeCode,
  retrySetup,
  walkthrough: () => () => vscode.commands.executeCommand('workbench.action.openWalkthrough', WALKTHROUGH, false),
  showLog: (ctx) => () => ctx.log.show(),
};

export function activate(context: vscode.ExtensionContext): void {
  const ctx = new Ctx(context, Date.now());
  ctx.log.info(`Browser Coordinator ${ctx.config.extensionVersion} in ${vscode.env.appName} ${vscode.version} (${ctx.product.nameShort}, ${process.platform}-${process.arch}, ui ${vscode.env.uiKind === vscode.UIKind.Web ? 'web' : 'desktop'}${vscode.env.remoteName ? `, remote ${vscode.env.remoteName}` : ''})`);
  ctx.registerCommand('browserCoordinator.showActions', showActions);
  ctx.registerCommand('browserCoordinator.registerNativeHost', registerNativeHostCommand);
  for (const [id, factory] of Object.entries(commands) as [ActionId, (ctx: Ctx) => Cmd][]) ctx.registerCommand(commandOf[id], factory);
  ctx.pushExtCleanup(
    vscode.workspace.onDidChangeConfiguration((e) => {
      if (e.affectsConfiguration(SECTION)) {
        ctx.log.info('settings changed');
        // No setting affects Tier 2; only sidecarPath needs the sidecar found again.
        void ctx.requestRefresh({ sidecar: e.affectsConfiguration(`${SECTION}.sidecarPath`) });
      }
    }),
    vscode.workspace.onDidChangeWorkspaceFolders(() => void ctx.requestRefresh({})),
  );
  registerMcp(ctx);
  ctx.status.render();
  ctx.log.info(`activated in ${Date.now() - ctx.activatedAt} ms; setting up in the background`);
  void ctx.requestRefresh({ sidecar: true, native: true }).then(async () => {
    ctx.setupDone();
    if (ctx.disposed) return;
    ctx.log.info(`ready in ${Date.now() - ctx.activatedAt} ms`);
    void notifyProblems(ctx, false, () => retry(ctx)); // not awaited: an error notification waits for its answer
    await offerClaudeCode(ctx);
  });
}

export function deactivate(): void {
  // Everything is disposed through context.subscriptions.
}
