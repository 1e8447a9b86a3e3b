// Which VS Code product runs us, and where it keeps argv.json and its user
// data folder (where Electron writes DevToolsActivePort). The rules are
// VS Code's own (src/vs/platform/environment/node/userDataPath.ts and
// environmentService.ts `argvResource`):
//   argv.json:  $VSCODE_PORTABLE/argv.json, else ~/<product.dataFolderName>/argv.json
//   user data:  --user-data-dir, else $VSCODE_PORTABLE/user-data, else
//               <$VSCODE_APPDATA or the OS's app data folder>/<product.nameShort>
import * as fs from 'node:fs';
import * as path from 'node:path';
import { absVar, appData, joinFor } from './osdirs';

export interface Product {
  /** e.g. "Code", "Code - Insiders", "Code - OSS", "VSCodium", "Cursor", "code-server" */
  nameShort: string;
  /** e.g. ".vscode", ".vscode-insiders", ".vscode-oss", ".cursor" */
  dataFolderName: string;
  /** The command line launcher, e.g. "code", "code-insiders", "codium", "cursor" (when known). */
  applicationName?: string;
  /**
   * How the product was recognised: its product.json, its appName in the
   * table below, or not at all ("guess": VS Code stable's folders assumed).
   */
  source?: 'product.json' | 'appName' | 'guess';
}

/** Known products by the appName VS Code reports, for when product.json cannot be read. */
const knownProducts: Record<string, Product> = {
  'Visual Studio Code': { nameShort: 'Code', dataFolderName: '.vscode', applicationName: 'code' },
  'Visual Studio Code - Insiders': { nameShort: 'Code - Insiders', dataFolderName: '.vscode-insiders', applicationName: 'code-insiders' },
  'Code - OSS': { nameShort: 'Code - OSS', dataFolderName: '.vscode-oss', applicationName: 'code-oss' },
  VSCodium: { nameShort: 'VSCodium', dataFolderName: '.vscode-oss', applicationName: 'codium' },
  Cursor: { nameShort: 'Cursor', dataFolderName: '.cursor', applicationName: 'cursor' },
};

/**
 * The running product, from product.json in VS Code's appRoot, else from its
 * appName, else VS Code stable (marked as a guess).
 */
export function readProduct(appRoot: string | undefined, appName?: string): Product {
  if (appRoot) {
    try {
      const json = JSON.parse(fs.readFileSync(path.join(appRoot, 'product.json'), 'utf8')) as { nameShort?: unknown; dataFolderName?: unknown; applicationName?: unknown };
      if (typeof json.nameShort === 'string' && typeof json.dataFolderName === 'string') {
        return {
          nameShort: json.nameShort,
          dataFolderName: json.dataFolderName,
          ...(typeof json.applicationName === 'string' ? { applicationName: json.applicationName } : {}),
          source: 'product.json',
        };
      }
    } catch {
      // fall through to the name
    }
  }
  const known = appName ? knownProducts[appName] : undefined;
  return known ? { ...known, source: 'appName' } : { ...knownProducts['Visual Studio Code'], source: 'guess' };
}

/**
 * The first VS Code release that passes "remote-debugging-port" from
 * argv.json to Electron: 1.104.0 (August 2025, released 2025-09-11).
 * microsoft/vscode#261013 ("add remote debugging port to command line
 * switches", merged in August 2025, after 1.103 shipped on 2025-08-07) added
 * it to SUPPORTED_ELECTRON_SWITCHES in src/main.ts and to argv.json's schema
 * in desktop.contribution.ts. Before that, main.ts dropped every argv.json
 * key outside its list, so the key was ignored silently: "Enable" succeeded
 * and the port never opened. The command line flag
 * (`code --remote-debugging-port=0`) reaches Chromium in every version
 * (microsoft/vscode#230495: VS Code warns it is unknown, then passes it on).
 * Forks report the VS Code version they are built on in vscode.version.
 */
export const ARGV_DEBUGGING_PORT_SINCE = '1.104.0';

/** Compares dotted versions numerically ("1.104.0" > "1.99.3"); a pre-release suffix is ignored. */
export function compareVersions(a: string, b: string): number {
  const parts = (v: string) => v.split(/[-+]/)[0].split('.').map((n) => Number.parseInt(n, 10) || 0);
  const x = parts(a);
  const y = parts(b);
  for (let i = 0; i < Math.max(x.length, y.length); i++) {
    const d = (x[i] ?? 0) - (y[i] ?? 0);
    if (d !== 0) return Math.sign(d);
  }
  return 0;
}

export interface Host {
  /** vscode.env.uiKind: the workbench runs in Electron (desktop) or in a browser (web: code-server, vscode.dev). */
  ui: 'desktop' | 'web';
  /** vscode.env.remoteName: set in a remote window (SSH, WSL, containers, Codespaces). */
  remoteName?: string;
  /** vscode.version */
  version: string;
  /** vscode.env.appName */
  appName: string;
  product: Product;
}

export type NativeSupport =
  /** argv.json is this VS Code's and it honours the key: the extension may offer to edit it. */
  | { kind: 'supported' }
  /** No desktop VS Code on this machine: nothing to edit, no port to find. */
  | { kind: 'unavailable'; reason: string }
  /**
   * A desktop VS Code that ignores the key (older than 1.104), or a product
   * whose argv.json cannot be located. The port can still be found when VS
   * Code was started with the flag; `needs` says what to do.
   */
  | { kind: 'argvIgnored'; reason: string; needs: string };

/** Whether native CDP (Tier 2) can be set up in this VS Code, and if not, why and what would help. */
export function nativeCdpSupport(h: Host): NativeSupport {
  if (h.ui !== 'desktop') {
    return { kind: 'unavailable', reason: `${h.appName} runs in a browser here: Tier 2 needs desktop VS Code on this machine, so the coordinator launches its own browser (Tier 1)` };
  }
  if (h.remoteName) {
    return { kind: 'unavailable', reason: `this is a remote window (${h.remoteName}): the extension runs on the remote machine, VS Code's window on yours, so the coordinator launches its own browser (Tier 1)` };
  }
  const cli = h.product.applicationName ?? 'code';
  const flag = `start it with \`${cli} --remote-debugging-port=0\` (all its windows closed first)`;
  if (h.product.source === 'guess') {
    return { kind: 'argvIgnored', reason: `${h.appName} is not a product the extension knows (its product.json cannot be read), so it does not know which argv.json is this one's`, needs: `To use Tier 2, ${flag}.` };
  }
  if (compareVersions(h.version, ARGV_DEBUGGING_PORT_SINCE) < 0) {
    return {
      kind: 'argvIgnored',
      reason: `${h.appName} ${h.version} ignores "remote-debugging-port" in argv.json (VS Code reads it from ${ARGV_DEBUGGING_PORT_SINCE} on)`,
      needs: `To use Tier 2, update to VS Code ${ARGV_DEBUGGING_PORT_SINCE} or later, or ${flag}.`,
    };
  }
  return { kind: 'supported' };
}

export interface Env {
  platform: NodeJS.Platform;
  home: string;
  env: NodeJS.ProcessEnv;
}

/** Where the running product reads its argv.json. */
export function argvJsonPath(product: Product, { home, env }: Env): string {
  if (env.VSCODE_PORTABLE) return path.join(env.VSCODE_PORTABLE, 'argv.json');
  return path.join(home, product.dataFolderName, 'argv.json');
}

/**
 * The product's user data folder. globalStorageDir (the extension's
 * context.globalStorageUri, <user data>/User/globalStorage/<id>) is the most
 * reliable source: it already honours --user-data-dir, portable mode and
 * VSCODE_APPDATA. Without it, VS Code's rules are applied.
 */
export function userDataDir(product: Product, { platform, home, env }: Env, globalStorageDir?: string): string {
  if (globalStorageDir) {
    const user = path.dirname(path.dirname(globalStorageDir));
    if (path.basename(path.dirname(globalStorageDir)) === 'globalStorage' && path.basename(user) === 'User') {
      return path.dirname(user);
    }
  }
  if (env.VSCODE_PORTABLE) return path.join(env.VSCODE_PORTABLE, 'user-data');
  return joinFor(platform, absVar({ platform, home, env }, 'VSCODE_APPDATA') ?? appData({ platform, home, env }), product.nameShort);
}
