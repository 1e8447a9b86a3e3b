// The coordinator's control API on its proxy port (docs/interfaces.md,
// "Control API"): GET /coordinator/status, POST /coordinator/launch|stop|restart,
// each with `Authorization: Bearer <controlToken>` from the state file.
// Answers are the status JSON; errors are {"error": "...", "remedies": [...]}
// with 401, 400 or 502: what went wrong, and what can be done as remedy
// kinds, which the extension says in its own words (remedyWords) — the
// sidecar's words are the command line's flags and the MCP tools.
import type { CoordinatorState } from './stateFile';
import { request } from './http';

export interface LaunchOptions {
  headless?: boolean;
  browserType?: string;
  browserPath?: string;
  url?: string;
}

/** The status the control API answers (the fields of coordinator_status; more may come). */
export interface Status {
  state: string;
  backend: string;
  browser?: { type: string; version?: string; pid?: number; headless: boolean } | null;
  proxyPort: number;
  cdpEndpoint: string;
  currentUrl?: string;
  lastError?: string;
  [field: string]: unknown;
}

export class ControlError extends Error {
  constructor(message: string, readonly status: number, readonly body?: unknown) {
    super(message);
    this.name = 'ControlError';
  }
}

export type Action = 'launch' | 'stop' | 'restart';

/** What the user of VS Code can do about a control API error, by remedy kind (the sidecar's remedy package). */
const remedyWords: Record<string, string> = {
  'browser-path': 'or add --browser-path <the browser\'s executable> to the setting browserCoordinator.coordinatorArgs to use a browser installed elsewhere',
  executable: 'name the browser\'s executable file (for example {arg}) and check that it is executable',
  'pick-detected': 'pick one of the detected browsers',
  'user-data-dir': 'or give another --user-data-dir in the setting browserCoordinator.coordinatorArgs',
  'state-dir': 'give --state-dir in the setting browserCoordinator.coordinatorArgs, or set BROWSER_COORDINATOR_STATE_DIR, to a folder of your own',
  'own-browser': 'to use a browser of its own instead of VS Code\'s, add --no-vscode to the setting browserCoordinator.coordinatorArgs',
  'open-tab': 'or have the agent open a page',
  reconnect: '"Browser Coordinator: Restart the Browser" reconnects to it',
  'switch-browser': 'have the agent launch another browser type to switch to a browser of the coordinator\'s own',
  'everyday-profile': 'add --user-data-dir to the setting browserCoordinator.coordinatorArgs when the browser\'s profile is not the default one',
  'register-host': 'register the native host with "Browser Coordinator: Use Your Own Browser: Register the Native Host…"',
};

/** An error answer's text with its remedies in the extension's words. */
export function phrase(error: string, remedies: unknown): string {
  if (!Array.isArray(remedies)) return error;
  const said = (remedies as unknown[])
    .map((r) => {
      const { kind, arg } = (typeof r === 'object' && r !== null ? r : {}) as { kind?: unknown; arg?: unknown };
      if (typeof kind !== 'string' || !(kind in remedyWords)) return undefined;
      return remedyWords[kind].replace('{arg}', typeof arg === 'string' ? arg : '');
    })
    .filter((w): w is string => !!w);
  return [error, ...said].join('; ');
}

/** A launch may wait for a browser to start (and a relaunch for one to stop first). */
const ACTION_TIMEOUT_MS = 120_000;

export class ControlClient {
  constructor(readonly port: number, private readonly token: string, private readonly timeoutMs = ACTION_TIMEOUT_MS) {}

  static of(state: Pick<CoordinatorState, 'proxyPort' | 'controlToken'>, timeoutMs?: number): ControlClient {
    return new ControlClient(state.proxyPort, state.controlToken, timeoutMs);
  }

  status(): Promise<Status> {
    return this.call('GET', '/coordinator/status');
  }

  launch(options: LaunchOptions = {}): Promise<Status> {
    return this.call('POST', '/coordinator/launch', options);
  }

  stop(): Promise<Status> {
    return this.call('POST', '/coordinator/stop', {});
  }

  restart(): Promise<Status> {
    return this.call('POST', '/coordinator/restart', {});
  }

  private async call(method: string, urlPath: string, body?: unknown): Promise<Status> {
    let res;
    try {
      res = await request({
        method,
        port: this.port,
        path: urlPath,
        headers: { Authorization: `Bearer ${this.token}` },
        body: body === undefined ? undefined : JSON.stringify(body),
        timeoutMs: this.timeoutMs,
      });
    } catch (err) {
      throw new ControlError(`the coordinator on port ${this.port} did not answer: ${(err as Error).message}`, 0);
    }
    let json: { error?: unknown; state?: unknown; remedies?: unknown } | null;
    try {
      json = JSON.parse(res.text) as typeof json;
    } catch {
      throw new ControlError(`${method} ${urlPath}: HTTP ${res.status}, not JSON: ${res.text.slice(0, 200)}`, res.status);
    }
    if (res.status !== 200) {
      const why = typeof json?.error === 'string' ? phrase(json.error, json.remedies) : `HTTP ${res.status}`;
      throw new ControlError(why, res.status, json);
    }
    if (typeof json !== 'object' || json === null || typeof json.state !== 'string') {
      throw new ControlError(`${method} ${urlPath}: the answer is not a status (no "state"): ${res.text.slice(0, 200)}`, res.status, json);
    }
    return json as Status;
  }
}
