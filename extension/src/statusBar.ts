// What the status bar item shows and which actions its quick pick offers,
// computed from the coordinator's state file and the native CDP setup. No
// `vscode` here: extension.ts copies the view onto a StatusBarItem.
import type { CoordinatorState } from './stateFile';

export interface NativeCdp {
  /** argv.json has a string "remote-debugging-port". */
  enabled: boolean;
  /** VS Code's CDP port, when DevToolsActivePort names a live port of this VS Code. */
  port?: number;
  /** Why native CDP does not work although enabled (not restarted, stale file, argv.json broken). */
  problem?: string;
}

export interface StatusInput {
  coordinator?: CoordinatorState;
  native: NativeCdp;
  /** The sidecar could not be found or run. */
  sidecarError?: string;
  /** A control action in flight, e.g. "launching". */
  busy?: string;
}

export type Severity = 'normal' | 'warning' | 'error';

export interface StatusView {
  text: string;
  tooltip: string;
  severity: Severity;
}

export type Tier = 'native' | 'external' | 'attach';

export function tierOf(input: StatusInput): Tier {
  switch (input.coordinator?.backend) {
    case 'tier2':
      return 'native';
    case 'attach':
      return 'attach';
    case 'tier1':
      return 'external';
    default:
      return input.native.port ? 'native' : 'external';
  }
}

const tierText: Record<Tier, string> = {
  native: "native: VS Code's own browser",
  external: 'external: a browser the coordinator launches',
  attach: 'attach: an existing CDP endpoint',
};

function icon(state: string, busy: boolean): string {
  if (busy) return '$(loading~spin)';
  switch (state) {
    case 'running':
      return '$(vm-running)';
    case 'launching':
      return '$(loading~spin)';
    case 'crashed':
      return '$(error)';
    case 'off':
      return '$(circle-slash)';
    default:
      return '$(globe)';
  }
}

export function statusView(input: StatusInput): StatusView {
  const c = input.coordinator;
  const tier = tierOf(input);
  const state = input.busy ? `${input.busy}…` : (c?.state ?? 'off');
  const lines = ['Browser Coordinator', `Tier: ${tierText[tier]}${tier === 'native' && input.native.port ? ` (CDP port ${input.native.port})` : ''}`];
  if (c) {
    lines.push(`Browser: ${c.state}${c.browser ? ` · ${c.browser.type}${c.browser.version ? ' ' + c.browser.version : ''}${c.browser.pid ? `, pid ${c.browser.pid}` : ''}${c.browser.headless ? ', headless' : ', visible window'}` : ''}`);
    lines.push(`Endpoint: ${c.cdpEndpoint} (coordinator pid ${c.pid}, ${c.version})`);
    if (c.currentUrl) lines.push(`Page: ${c.currentUrl}`);
  } else {
    lines.push('No coordinator runs for this workspace: an MCP host (VS Code, Claude Code, Cursor) starts it with its browser-coordinator entry.');
  }
  lines.push(`Native CDP: ${input.native.enabled ? (input.native.port ? `on, port ${input.native.port}` : 'enabled in argv.json, not live') : 'off'}`);
  let severity: Severity = 'normal';
  if (input.native.problem) {
    lines.push(`⚠ ${input.native.problem}`);
    severity = 'warning';
  }
  if (input.sidecarError) {
    lines.push(`✖ ${input.sidecarError}`);
    severity = 'error';
  }
  if (c?.state === 'crashed') severity = 'error';
  lines.push('', 'Click for actions.');
  return { text: `${icon(state, input.busy !== undefined)} ${tier} · ${state}`, tooltip: lines.join('\n'), severity };
}

export type ActionId =
  | 'launch'
  | 'stop'
  | 'restart'
  | 'toggleHeadless'
  | 'openPreview'
  | 'enableNativeCdp'
  | 'disableNativeCdp'
  | 'writeMcpJson'
  | 'showLog';

export interface ActionItem {
  id: ActionId;
  label: string;
  description?: string;
}

/** The quick pick's actions for this state, most likely first. */
export function actionItems(input: StatusInput): ActionItem[] {
  const c = input.coordinator;
  const items: ActionItem[] = [];
  if (c) {
    const active = c.state === 'running' || c.state === 'launching';
    if (active) {
      items.push({ id: 'stop', label: '$(debug-stop) Stop the browser', description: 'the CDP endpoint keeps its port' });
      items.push({ id: 'restart', label: '$(debug-restart) Restart the browser', description: 'clients reconnect through the same port' });
    } else {
      items.push({ id: 'launch', label: '$(play) Launch the browser', description: c.state === 'crashed' ? 'it crashed' : 'now, instead of on first use' });
    }
    if (c.backend === 'tier1') {
      const headless = c.browser?.headless ?? true;
      items.push({
        id: 'toggleHeadless',
        label: headless ? '$(eye) Show the browser window (headless off)' : '$(eye-closed) Hide the browser window (headless on)',
        description: active ? 'relaunches the browser' : 'launches the browser',
      });
    }
    if (c.currentUrl && !c.currentUrl.startsWith('about:')) {
      items.push({ id: 'openPreview', label: '$(preview) Open a preview of the current page', description: c.currentUrl });
    }
  }
  items.push(
    input.native.enabled
      ? { id: 'disableNativeCdp', label: "$(circle-slash) Disable native CDP (VS Code's own browser)", description: 'removes remote-debugging-port from argv.json' }
      : { id: 'enableNativeCdp', label: "$(plug) Enable native CDP (VS Code's own browser)", description: 'edits argv.json; needs a full restart' },
  );
  items.push({ id: 'writeMcpJson', label: '$(json) Write .mcp.json for Claude Code', description: 'the coordinator and the child MCP entries' });
  items.push({ id: 'showLog', label: '$(output) Show the log' });
  return items;
}
