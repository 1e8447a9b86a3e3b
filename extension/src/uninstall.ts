// The extension's `vscode:uninstall` hook (package.json scripts). VS Code
// runs it with Node, from the extension's folder, once the extension is
// removed for good (at the restart after "Uninstall"), and kills it after
// 5 s; the folder is deleted afterwards. It undoes what the extension left
// outside itself:
//   - "remote-debugging-port" in this product's argv.json, when the extension
//     set it (its comment marks it; a key the user wrote stays);
//   - the port file (VS Code's CDP port for the sidecar);
//   - Claude Code's local-scope entries that run this extension's bundled
//     sidecar, which is about to be deleted: that sidecar removes them
//     itself (`install --scope local --remove --all-workspaces --sidecar
//     <itself>`), as the owner of Claude Code's file.
// Which product: an extension lives in <data folder>/extensions/<id>-<version>
// (~/.vscode/extensions, ~/.cursor/extensions, $VSCODE_PORTABLE/extensions),
// and argv.json is <data folder>/argv.json. A custom --extensions-dir says
// nothing about the product, so then argv.json is left alone.
import { spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { removeOwnKey } from './argv';
import { portFilePath } from './cdpPort';
import { exeName, vsixTarget } from './sidecar';
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

  attempt('Claude Code', () => removeClaudeCodeEntries(o.extensionDir, p));
  return done;
}

/** Has the bundled sidecar take its own entries out of Claude Code's file, in every folder. */
function removeClaudeCodeEntries(extensionDir: string, p: Platform): string | undefined {
  const target = vsixTarget(p.platform);
  const sidecar = target && path.join(path.resolve(extensionDir), 'bin', target, exeName(p.platform));
  if (!sidecar || !fs.existsSync(sidecar)) return undefined; // no bundled sidecar: no entries of its to remove
  const r = spawnSync(sidecar, ['install', '--host', 'claude-code', '--scope', 'local', '--remove', '--all-workspaces', '--sidecar', sidecar, '--json'], {
    encoding: 'utf8', timeout: 3000, windowsHide: true, env: { ...p.env, HOME: p.home, USERPROFILE: p.home },
  });
  let answer: { file?: string; error?: string; removed?: { name: string; workspace?: string }[] } = {};
  try {
    answer = JSON.parse(r.stdout) as typeof answer;
  } catch {
    throw new Error(`the sidecar did not answer: ${(r.stderr || r.error?.message || '').trim()}`);
  }
  if (answer.error) throw new Error(answer.error);
  const byFolder = new Map<string, string[]>();
  for (const x of answer.removed ?? []) byFolder.set(x.workspace ?? '', [...(byFolder.get(x.workspace ?? '') ?? []), x.name]);
  if (byFolder.size === 0) return undefined;
  return `removed from ${answer.file}: ${[...byFolder].map(([folder, names]) => `${names.join(', ')} of ${folder}`).join('; ')}`;
}

if (require.main === module) {
  const extensionDir = path.resolve(__dirname, '..', '..');
  for (const line of uninstall({ extensionDir })) console.log(line);
}
