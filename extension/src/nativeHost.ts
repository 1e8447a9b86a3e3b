// Registering the everyday browser's native host on request: the sidecar
// does it (`browser-coordinator install --host <browser>`, which writes the
// host manifest where that browser looks, or the registry key on Windows),
// so the logic lives once; this module only picks the browser, runs the
// sidecar and words the outcome. The manifest names the sidecar by its path,
// which for the bundled one contains the extension's version: the extension
// remembers which browsers it registered, with which sidecar, and registers
// them again when the sidecar has moved (an update of the extension).
import { execFile } from 'node:child_process';

/** The browsers whose native hosts the sidecar registers. */
export const hostBrowsers = ['chrome', 'edge', 'chromium', 'brave'] as const;
export type HostBrowser = (typeof hostBrowsers)[number];

export const hostBrowserLabels: Record<HostBrowser, string> = {
  chrome: 'Google Chrome',
  edge: 'Microsoft Edge',
  chromium: 'Chromium',
  brave: 'Brave',
};

export function isHostBrowser(x: unknown): x is HostBrowser {
  return typeof x === 'string' && (hostBrowsers as readonly string[]).includes(x);
}

export interface Registered {
  browser: HostBrowser;
  /** What the sidecar said it did ("registered the native host for chrome: <file>"). */
  message: string;
}

export interface RegisterOptions {
  sidecar: string;
  browser: unknown;
  /** A profile of its own (a browser started with --user-data-dir); default the browser's per-user place. */
  userDataDir?: string;
  env?: NodeJS.ProcessEnv;
  timeoutMs?: number;
}

/**
 * Runs `<sidecar> install --host <browser>`. A browser that is not one of
 * hostBrowsers is refused before anything runs; a failure of the sidecar is
 * an error carrying what it printed.
 */
export function registerNativeHost(o: RegisterOptions): Promise<Registered> {
  const browser = o.browser;
  if (!isHostBrowser(browser)) {
    return Promise.reject(new Error(`cannot register the native host for ${JSON.stringify(browser)}: choose ${hostBrowsers.join(', ')}`));
  }
  const args = ['install', '--host', browser];
  if (o.userDataDir) args.push('--user-data-dir', o.userDataDir);
  return new Promise((resolve, reject) => {
    execFile(o.sidecar, args, { timeout: o.timeoutMs ?? 15_000, windowsHide: true, env: o.env ?? process.env }, (err, stdout, stderr) => {
      const said = `${stdout}${stderr}`.trim().replace(/^browser-coordinator: /gm, '');
      if (err) {
        reject(new Error(`browser-coordinator install --host ${browser} failed: ${said || err.message}`));
        return;
      }
      resolve({ browser, message: said || `registered the native host for ${browser}` });
    });
  });
}

/** What to tell the user once the host is registered: the steps left. */
export function nextSteps(browser: HostBrowser): string {
  return `${hostBrowserLabels[browser]} can now start Browser Coordinator's native host. ` +
    'Install the Browser Coordinator extension in it (or reload the extension if it is there), ' +
    'then start the coordinator with --browser everyday (the setting browserCoordinator.coordinatorArgs) ' +
    'or ask the agent to use browserType "everyday".';
}

/** What the extension remembers of its registrations (globalState). */
export interface HostRecord {
  sidecar: string;
  browsers: HostBrowser[];
}

/** The record after registering browser with sidecar. */
export function remember(prev: HostRecord | undefined, sidecar: string, browser: HostBrowser): HostRecord {
  const browsers = prev?.browsers.filter(isHostBrowser) ?? [];
  return { sidecar, browsers: browsers.includes(browser) ? browsers : [...browsers, browser] };
}

/** The browsers to register again because the sidecar has moved since. */
export function staleRegistrations(prev: HostRecord | undefined, sidecar: string): HostBrowser[] {
  if (!prev || prev.sidecar === sidecar || !Array.isArray(prev.browsers)) return [];
  return prev.browsers.filter(isHostBrowser);
}
