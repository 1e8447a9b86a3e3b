// Which VS Code product runs us, and where it keeps argv.json and its user
// data folder (where Electron writes DevToolsActivePort). The rules are
// VS Code's own (src/vs/platform/environment/node/userDataPath.ts and
// environmentService.ts `argvResource`):
//   argv.json:  $VSCODE_PORTABLE/argv.json, else ~/<product.dataFolderName>/argv.json
//   user data:  --user-data-dir, else $VSCODE_PORTABLE/user-data, else
//               <$VSCODE_APPDATA or the OS's app data folder>/<product.nameShort>
import * as fs from 'node:fs';
import * as path from 'node:path';

export interface Product {
  /** e.g. "Code", "Code - Insiders", "Code - OSS", "VSCodium", "Cursor", "code-server" */
  nameShort: string;
  /** e.g. ".vscode", ".vscode-insiders", ".vscode-oss", ".cursor" */
  dataFolderName: string;
}

/** Known products by the appName VS Code reports, for when product.json cannot be read. */
const knownProducts: Record<string, Product> = {
  'Visual Studio Code': { nameShort: 'Code', dataFolderName: '.vscode' },
  'Visual Studio Code - Insiders': { nameShort: 'Code - Insiders', dataFolderName: '.vscode-insiders' },
  'Code - OSS': { nameShort: 'Code - OSS', dataFolderName: '.vscode-oss' },
  VSCodium: { nameShort: 'VSCodium', dataFolderName: '.vscode-oss' },
  Cursor: { nameShort: 'Cursor', dataFolderName: '.cursor' },
};

/**
 * The running product, from product.json in VS Code's appRoot, else from its
 * appName, else VS Code stable.
 */
export function readProduct(appRoot: string | undefined, appName?: string): Product {
  if (appRoot) {
    try {
      const json = JSON.parse(fs.readFileSync(path.join(appRoot, 'product.json'), 'utf8'));
      if (typeof json.nameShort === 'string' && typeof json.dataFolderName === 'string') {
        return { nameShort: json.nameShort, dataFolderName: json.dataFolderName };
      }
    } catch {
      // fall through to the name
    }
  }
  return (appName && knownProducts[appName]) || knownProducts['Visual Studio Code'];
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
  let appData = env.VSCODE_APPDATA;
  if (!appData) {
    switch (platform) {
      case 'win32':
        appData = env.APPDATA || path.join(env.USERPROFILE || home, 'AppData', 'Roaming');
        break;
      case 'darwin':
        appData = path.join(home, 'Library', 'Application Support');
        break;
      default:
        appData = env.XDG_CONFIG_HOME || path.join(home, '.config');
    }
  }
  return path.join(appData, product.nameShort);
}
