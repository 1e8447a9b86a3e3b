// The status bar item and the context keys: what statusBar.ts computes from
// the other flows' state, copied onto the API. This flow owns the item and
// the control action in flight ("launching", …), which only it shows.
import * as vscode from 'vscode';
import type { Ctx } from '../ctx';
import { contextKeys, StatusInput, statusView } from '../statusBar';

export class StatusItem implements vscode.Disposable {
  private readonly item: vscode.StatusBarItem;
  private busy?: string;

  constructor(private readonly ctx: Ctx) {
    this.item = vscode.window.createStatusBarItem('browserCoordinator.status', vscode.StatusBarAlignment.Left, 50);
    this.item.name = 'Browser Coordinator';
    this.item.command = 'browserCoordinator.showActions';
    this.item.text = '$(loading~spin) browser';
    this.item.show();
  }

  /** Shows `label` ("launching", …) while `work` runs, then the state again. */
  async busyWhile(label: string, work: () => Promise<void>): Promise<void> {
    this.busy = label;
    this.render();
    try {
      await work();
    } finally {
      this.busy = undefined;
      this.ctx.state.refresh();
      this.render();
    }
  }

  /** What the status bar, the quick pick and the context keys are computed from. */
  input(): StatusInput {
    const { ctx } = this;
    return {
      coordinator: ctx.state.current?.state,
      native: ctx.tier2.native,
      sidecarError: ctx.problems.get('sidecar'),
      busy: this.busy,
      problems: ctx.problems.list().filter((p) => p.step !== 'sidecar'),
      claude: ctx.claudeCode.summary(),
      folders: ctx.config.folders.length,
    };
  }

  render(): void {
    const input = this.input();
    const view = statusView(input);
    this.item.text = view.text;
    const tooltip = new vscode.MarkdownString(view.tooltip, true);
    tooltip.isTrusted = { enabledCommands: view.commands };
    this.item.tooltip = tooltip;
    this.item.accessibilityInformation = { label: view.plain };
    this.item.backgroundColor = view.severity === 'normal' ? undefined : new vscode.ThemeColor(`statusBarItem.${view.severity === 'error' ? 'error' : 'warning'}Background`);
    const keys: Record<string, boolean> = { ...contextKeys(input), 'browserCoordinator.tier2.supported': this.ctx.tier2.support.kind === 'supported' };
    for (const [key, value] of Object.entries(keys)) void vscode.commands.executeCommand('setContext', key, value);
  }

  dispose(): void {
    this.item.dispose();
  }
}
