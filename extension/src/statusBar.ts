// What the extension shows, computed from the coordinator's state file and
// the setup: the status bar item (text, a Markdown tooltip whose actions are
// command links), the quick pick's actions, and the context keys that the
// `when` clauses of package.json read, so that a command appears only where
// it can act. One rule decides each action for all three. No `vscode` here:
// extension.ts copies the result onto the API.
//
// Vocabulary (the README's): Tier 1 — a browser the coordinator launches;
// Tier 2 — VS Code's own browser view, through VS Code's debugging port
// (set up with "Enable Tier 2"); attach — an existing CDP endpoint
// (--cdp-endpoint); everyday — the user's own browser through the browser
// extension. The state file's tier1/tier2/attach/everyday are the contract's
// names for the same four.
import type { StepFailure } from './setup';
import { CoordinatorState, redactEndpoint } from './stateFile';

export type NativeSupportKind = 'supported' | 'argvIgnored' | 'unavailable';

export interface NativeCdp {
  /** Whether the extension may edit argv.json here (nativeCdpSupport in product.ts). */
  support: NativeSupportKind;
  /** argv.json has a string "remote-debugging-port". */
  enabled: boolean;
  /** VS Code's CDP port, when DevToolsActivePort names a live port of this VS Code. */
  port?: number;
  /** Why Tier 2 does not work although set up (not restarted, stale file, argv.json broken, VS Code too old). */
  problem?: string;
}

export interface StatusInput {
  coordinator?: CoordinatorState;
  native: NativeCdp;
  /** The sidecar could not be found or run. */
  sidecarError?: string;
  /** A control action in flight, e.g. "launching". */
  busy?: string;
  /** Setup steps that failed (each is retried by "Retry Setup"). */
  problems?: StepFailure[];
  /** Claude Code entries: some exist in an open folder; a stale one needs a repair. */
  claude?: { hasEntries: boolean; stale?: string };
  /** Workspace folders open. */
  folders?: number;
}

export type Severity = 'normal' | 'warning' | 'error';

export type Tier = 'Tier 1' | 'Tier 2' | 'attach' | 'everyday' | 'service';

export function tierOf(input: StatusInput): Tier {
  switch (input.coordinator?.backend) {
    case 'tier2':
      return 'Tier 2';
    case 'attach':
      return 'attach';
    case 'everyday':
      return 'everyday';
    case 'service':
      return 'service';
    case 'tier1':
      return 'Tier 1';
    default:
      return input.native.port ? 'Tier 2' : 'Tier 1';
  }
}

const tierText: Record<Tier, string> = {
  'Tier 1': 'a browser the coordinator launches',
  'Tier 2': "VS Code's own browser view",
  attach: 'an existing CDP endpoint',
  everyday: 'your own browser, through the browser extension',
  service: 'a session on a remote browser service (--browser-service)',
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

export type ActionId =
  | 'launch'
  | 'stop'
  | 'restart'
  | 'toggleHeadless'
  | 'openPreview'
  | 'enableNativeCdp'
  | 'disableNativeCdp'
  | 'addToClaudeCode'
  | 'repairClaudeCode'
  | 'removeFromClaudeCode'
  | 'retrySetup'
  | 'walkthrough'
  | 'showLog';

/** The command behind each action (package.json contributes.commands). */
export const commandOf: Record<ActionId, string> = {
  launch: 'browserCoordinator.launchBrowser',
  stop: 'browserCoordinator.stopBrowser',
  restart: 'browserCoordinator.restartBrowser',
  toggleHeadless: 'browserCoordinator.toggleHeadless',
  openPreview: 'browserCoordinator.openPreview',
  enableNativeCdp: 'browserCoordinator.enableNativeCdp',
  disableNativeCdp: 'browserCoordinator.disableNativeCdp',
  addToClaudeCode: 'browserCoordinator.addToClaudeCode',
  repairClaudeCode: 'browserCoordinator.repairClaudeCode',
  removeFromClaudeCode: 'browserCoordinator.removeFromClaudeCode',
  retrySetup: 'browserCoordinator.retrySetup',
  walkthrough: 'browserCoordinator.openWalkthrough',
  showLog: 'browserCoordinator.showLog',
};

/** Which actions can act now: one rule for the quick pick, the tooltip's links and the context keys. */
export function availability(input: StatusInput): Record<ActionId, boolean> {
  const c = input.coordinator;
  const active = c?.state === 'running' || c?.state === 'launching';
  const idle = !input.busy;
  return {
    launch: !!c && !active && idle,
    stop: !!c && active && idle,
    restart: !!c && active && idle,
    toggleHeadless: !!c && c.backend === 'tier1' && idle,
    openPreview: !!c && !!c.currentUrl && !c.currentUrl.startsWith('about:'),
    enableNativeCdp: input.native.support === 'supported' && !input.native.enabled,
    disableNativeCdp: input.native.support !== 'unavailable' && input.native.enabled,
    addToClaudeCode: (input.folders ?? 0) > 0 && !input.sidecarError,
    repairClaudeCode: !!input.claude?.stale,
    removeFromClaudeCode: !!input.claude?.hasEntries,
    retrySetup: (input.problems?.length ?? 0) > 0 || !!input.sidecarError,
    walkthrough: true,
    showLog: true,
  };
}

/** The context keys package.json's `when` clauses use. */
export function contextKeys(input: StatusInput): Record<string, boolean> {
  const a = availability(input);
  return {
    'browserCoordinator.coordinator': !!input.coordinator,
    'browserCoordinator.canLaunch': a.launch,
    'browserCoordinator.canStop': a.stop,
    'browserCoordinator.canToggleHeadless': a.toggleHeadless,
    'browserCoordinator.hasPage': a.openPreview,
    'browserCoordinator.tier2.canEnable': a.enableNativeCdp,
    'browserCoordinator.tier2.enabled': a.disableNativeCdp,
    'browserCoordinator.tier2.live': !!input.native.port,
    'browserCoordinator.claudeCode.canAdd': a.addToClaudeCode,
    'browserCoordinator.claudeCode.hasEntries': a.removeFromClaudeCode,
    'browserCoordinator.claudeCode.stale': a.repairClaudeCode,
    'browserCoordinator.setupFailed': a.retrySetup,
  };
}

export interface ActionItem {
  id: ActionId;
  label: string;
  description?: string;
}

/** The quick pick's actions for this state, most likely first. */
export function actionItems(input: StatusInput): ActionItem[] {
  const c = input.coordinator;
  const a = availability(input);
  const items: ActionItem[] = [];
  if (a.retrySetup) items.push({ id: 'retrySetup', label: '$(refresh) Retry setup', description: input.sidecarError ?? input.problems?.map((p) => p.step).join(', ') });
  if (a.repairClaudeCode) items.push({ id: 'repairClaudeCode', label: '$(wrench) Repair the Claude Code entries', description: input.claude?.stale });
  if (a.stop) items.push({ id: 'stop', label: '$(debug-stop) Stop the browser', description: 'the CDP endpoint keeps its port' });
  if (a.restart) items.push({ id: 'restart', label: '$(debug-restart) Restart the browser', description: 'clients reconnect through the same port' });
  if (a.launch) items.push({ id: 'launch', label: '$(play) Launch the browser', description: c?.state === 'crashed' ? 'it crashed' : 'now, instead of on first use' });
  if (a.toggleHeadless) {
    const headless = c?.browser?.headless ?? true;
    const active = c?.state === 'running' || c?.state === 'launching';
    items.push({
      id: 'toggleHeadless',
      label: headless ? '$(eye) Show the browser window (headless off)' : '$(eye-closed) Hide the browser window (headless on)',
      description: active ? 'relaunches the browser' : 'launches the browser',
    });
  }
  if (a.openPreview) items.push({ id: 'openPreview', label: '$(preview) Open a preview of the current page', description: c?.currentUrl });
  if (a.enableNativeCdp) items.push({ id: 'enableNativeCdp', label: "$(plug) Enable Tier 2 (VS Code's own browser)", description: 'opens VS Code\'s debugging port (argv.json); needs a full restart' });
  if (a.disableNativeCdp) items.push({ id: 'disableNativeCdp', label: '$(circle-slash) Disable Tier 2', description: 'closes VS Code\'s debugging port (argv.json)' });
  if (a.addToClaudeCode) items.push({ id: 'addToClaudeCode', label: '$(add) Add to Claude Code…', description: 'the coordinator and the child MCP, for one folder' });
  if (a.removeFromClaudeCode) items.push({ id: 'removeFromClaudeCode', label: '$(trash) Remove from Claude Code…', description: 'the entries the extension wrote' });
  items.push({ id: 'walkthrough', label: '$(book) Get started', description: 'the walkthrough' });
  items.push({ id: 'showLog', label: '$(output) Show the log' });
  return items;
}

/** Escapes text for Markdown (VS Code's MarkdownString rules). */
export function md(text: string): string {
  return text.replace(/[\\`*_{}[\]()#+\-.!|<>~]/g, (ch) => `\\${ch}`);
}

export interface StatusView {
  text: string;
  /** Markdown, with command links; only the commands in `commands` may run from it. */
  tooltip: string;
  /** The same without links, for screen readers (the accessibility label). */
  plain: string;
  severity: Severity;
  commands: string[];
}

const linkLabel: Partial<Record<ActionId, string>> = {
  retrySetup: 'Retry setup',
  repairClaudeCode: 'Repair',
  launch: 'Launch',
  stop: 'Stop',
  restart: 'Restart',
  toggleHeadless: 'Show/hide the window',
  openPreview: 'Preview',
  enableNativeCdp: 'Enable Tier 2',
  disableNativeCdp: 'Disable Tier 2',
  addToClaudeCode: 'Add to Claude Code',
  walkthrough: 'Get started',
  showLog: 'Log',
};

export function statusView(input: StatusInput): StatusView {
  const c = input.coordinator;
  const tier = tierOf(input);
  const state = input.busy ? `${input.busy}…` : (c?.state ?? 'off');
  const lines: string[] = [`Browser Coordinator: ${tier}, ${tierText[tier]}${tier === 'Tier 2' && input.native.port ? ` (port ${input.native.port})` : ''}`];
  if (c) {
    lines.push(`Browser: ${c.state}${c.browser ? ` · ${c.browser.type}${c.browser.version ? ' ' + c.browser.version : ''}${c.browser.pid ? `, pid ${c.browser.pid}` : ''}${c.browser.headless ? ', headless' : ', visible window'}` : ''}`);
    lines.push(`Endpoint: ${redactEndpoint(c.cdpEndpoint, c.proxySecret)} (coordinator pid ${c.pid}, ${c.version})`);
    if (c.currentUrl) lines.push(`Page: ${c.currentUrl}`);
  } else {
    lines.push('No coordinator runs for this workspace: an MCP host (VS Code, Claude Code, Cursor) starts it with its browser-coordinator entry.');
  }
  const t2 = input.native;
  lines.push(`Tier 2: ${t2.port ? `live, VS Code's port ${t2.port}` : t2.enabled ? 'set up in argv.json, not live' : t2.support === 'unavailable' ? 'not available here' : 'off'}`);
  let severity: Severity = 'normal';
  const warnings: string[] = [];
  if (t2.problem) {
    warnings.push(`⚠ ${t2.problem}`);
    severity = 'warning';
  }
  if (input.claude?.stale) {
    warnings.push(`⚠ Claude Code: ${input.claude.stale}`);
    severity = 'warning';
  }
  for (const p of input.problems ?? []) {
    warnings.push(`✖ ${p.step}: ${p.message}`);
    severity = 'error';
  }
  if (input.sidecarError) {
    warnings.push(`✖ ${input.sidecarError}`);
    severity = 'error';
  }
  if (c?.state === 'crashed') severity = 'error';

  const a = availability(input);
  const linkIds = (Object.keys(linkLabel) as ActionId[]).filter((id) => a[id]);
  const commands = linkIds.map((id) => commandOf[id]);
  const links = linkIds.map((id) => `[${linkLabel[id]}](command:${commandOf[id]} "${linkLabel[id]}")`).join(' · ');
  const [title, ...rest] = lines;
  const tooltip = [`**${md(title)}**`, '', ...rest.map((l) => `${md(l)}  `), ...(warnings.length ? ['', ...warnings.map((w) => `${md(w)}  `)] : []), '', links].join('\n');
  const plain = [...lines, ...warnings].join('\n');
  return { text: `${icon(state, input.busy !== undefined)} ${tier} · ${state}`, tooltip, plain, severity, commands };
}
