// The extension's `vscode:uninstall` hook (package.json scripts). VS Code
// runs it with Node, from the extension's folder, once the extension is
// removed for good (at the restart after "Uninstall"), and kills it after
// 5 s; the folder is deleted afterwards. It undoes what the extension left
// outside itself:
//   - "remote-debugging-port" in this product's argv.json, when the extension
//     set it (its comment marks it; a key the user wrote stays);
//   - the port file (VS Code's CDP port for the sidecar);
//   - Claude Code's local-scope entries that run this extension's bundled
//     sidecar, which is about to be deleted.
// Which product: an extension lives in <data folder>/extensions/<id>-<version>
// (~/.vscode/extensions, ~/.cursor/extensions, $VSCODE_PORTABLE/extensions),
// and argv.json is <data folder>/argv.json. A custom --extensions-dir says
// nothing about the product, so then argv.json is left alone.
import * as fs from 'node:fs';
import * as path from 'node:path';
import { removeOwnKey } from './argv';
import { portFilePath } from './cdpPort';
import { claudeJsonPath, Location, readServers, writeServers } from './claudeCode';
import { currentPlatform, Platform, readOwnedFile } from './stateFile';

export interface UninstallOptions {
  /** The extension's folder. */
  extensionDir: string;
  platform?: Platform;
  /** Where the port file is (default: the rule of cdpPort.ts). */
  portFile?: string;
}

/** argv.json of the product an extension folder belongs to, or undefined when the folder does not say. */
export function argvJsonOf(extensionDir: string): string | undefined {
  const extensions = path.dirname(path.resolve(extensionDir));
  if (path.basename(extensions) !== 'extensions') return undefined;
  return path.join(path.dirname(extensions), 'argv.json');
}

/** Undoes the extension's changes outside its folder; returns what it did, one line each. Never throws. */
export function uninstall(o: UninstallOptions): string[] {
  const done: string[] = [];
  const p = o.platform ?? currentPlatform();
  const attempt = (what: string, fn: () => string | undefined) => {
    try {
      const line = fn();
      if (line) done.push(line);
    } catch (err) {
      done.push(`${what}: ${(err as Error).message}`);
    }
  };

  attempt('argv.json', () => {
    const argv = argvJsonOf(o.extensionDir);
    if (!argv) return `argv.json: ${o.extensionDir} is not in an extensions folder of a VS Code data folder; argv.json left alone`;
    return removeOwnKey(argv).message;
  });

  attempt('port file', () => {
    const file = o.portFile ?? portFilePath(p);
    try {
      readOwnedFile(file); // only a port file of this user's
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
      return `${file} left alone: ${(err as Error).message}`;
    }
    fs.rmSync(file, { force: true });
    return `removed ${file}`;
  });

  attempt('Claude Code', () => {
    const file = claudeJsonPath({ home: p.home, env: p.env });
    const removed: string[] = [];
    const root: Location = { place: 'local', folder: '', file, jsonPath: ['projects'], label: file };
    const projects = readServers(root); // the projects map (readServers reads any object at a path)
    const inside = path.resolve(o.extensionDir) + path.sep;
    for (const [folder, project] of Object.entries(projects)) {
      const servers = (project as { mcpServers?: Record<string, { command?: unknown }> })?.mcpServers;
      if (!servers || typeof servers !== 'object') continue;
      const names = Object.entries(servers).filter(([, e]) => typeof e?.command === 'string' && path.resolve(e.command).startsWith(inside)).map(([n]) => n);
      if (names.length === 0) continue;
      const loc: Location = { place: 'local', folder, file, jsonPath: ['projects', folder, 'mcpServers'], label: file };
      writeServers(loc, {}, names);
      removed.push(`${names.join(', ')} of ${folder}`);
    }
    return removed.length ? `removed from ${file}: ${removed.join('; ')}` : undefined;
  });
  return done;
}

if (require.main === module) {
  const extensionDir = path.resolve(__dirname, '..', '..');
  for (const line of uninstall({ extensionDir })) console.log(line);
}
