// The per-user folders each OS gives programs, as the sidecar's osdirs
// package (its one Go owner) computes them: the extension needs two of them
// before any sidecar is found (the state folder to watch, VS Code's user
// data folder when globalStorage does not say). Both sides are tested
// against the same cases (sidecar/internal/osdirs/testdata/cases.json).
//
// A variable that is not an absolute path is ignored, as the XDG Base
// Directory spec says of its variables ("If an implementation encounters a
// relative path in any of these variables it should consider the path
// invalid and ignore it").
import * as path from 'node:path';

export interface OsEnv {
  platform: NodeJS.Platform;
  home: string;
  env: NodeJS.ProcessEnv;
}

/** Joins with the separator of the platform, so Windows' rules read right anywhere. */
export function joinFor(platform: NodeJS.Platform, ...parts: string[]): string {
  return platform === 'win32' ? path.win32.join(...parts) : path.posix.join(...parts);
}

function isAbs(platform: NodeJS.Platform, p: string): boolean {
  return platform === 'win32' ? /^[A-Za-z]:[\\/]|^\\\\/.test(p) : p.startsWith('/');
}

/** The variable's value when it is an absolute path on the platform. */
export function absVar(o: OsEnv, name: string): string | undefined {
  const v = o.env[name];
  return v && isAbs(o.platform, v) ? v : undefined;
}

function homeOf(o: OsEnv): string {
  return o.platform === 'win32' ? (o.env.USERPROFILE || o.home) : o.home;
}

/** Where desktop apps keep their data (Electron's appData): %APPDATA%, ~/Library/Application Support, $XDG_CONFIG_HOME or ~/.config. */
export function appData(o: OsEnv): string {
  switch (o.platform) {
    case 'win32':
      return absVar(o, 'APPDATA') ?? joinFor(o.platform, homeOf(o), 'AppData', 'Roaming');
    case 'darwin':
      return joinFor(o.platform, o.home, 'Library', 'Application Support');
    default:
      return absVar(o, 'XDG_CONFIG_HOME') ?? joinFor(o.platform, o.home, '.config');
  }
}

/**
 * A per-user folder for runtime state no other user can create first:
 * $XDG_RUNTIME_DIR, else $XDG_STATE_HOME, else ~/.local/state (Linux and
 * other unixes); $TMPDIR, per user there, else ~/Library/Caches (macOS);
 * %LOCALAPPDATA%, else its default (Windows).
 */
export function stateBase(o: OsEnv): string {
  switch (o.platform) {
    case 'win32':
      return absVar(o, 'LOCALAPPDATA') ?? joinFor(o.platform, homeOf(o), 'AppData', 'Local');
    case 'darwin': {
      const tmp = absVar(o, 'TMPDIR');
      return tmp ? joinFor(o.platform, tmp) : joinFor(o.platform, o.home, 'Library', 'Caches');
    }
    default:
      return absVar(o, 'XDG_RUNTIME_DIR') ?? absVar(o, 'XDG_STATE_HOME') ?? joinFor(o.platform, o.home, '.local', 'state');
  }
}
