// The browser extension (extension/browser): compile it with tsc, lay it out
// for "Load unpacked" in dist/browser-extension/, and pack the zip the Chrome
// Web Store takes (dist/browser-coordinator-extension-<version>.zip).
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import zlib from 'node:zlib';
import { root } from './paths.mjs';
import { packageVersion } from './build.mjs';
import { zipEntries } from './zip.mjs';

export const sourceDir = path.join(root, 'extension', 'browser');
export const compiledDir = path.join(root, 'out', 'browser');
export const unpackedDir = path.join(root, 'dist', 'browser-extension');
const shipped = ['background.js', 'bridge.js', 'chromeApi.js', 'links.js', 'protocol.js', 'popup.js', 'popupView.js'];

export function zipPath() {
  return path.join(root, 'dist', `browser-coordinator-extension-${packageVersion()}.zip`);
}

/** Compiles src and test into out/browser and assembles dist/browser-extension. */
export function buildBrowserExtension({ log = () => {} } = {}) {
  const started = Date.now();
  fs.rmSync(compiledDir, { recursive: true, force: true });
  execFileSync(process.execPath, [path.join(root, 'node_modules', 'typescript', 'bin', 'tsc'), '-p', sourceDir], { cwd: root, stdio: 'inherit' });
  fs.writeFileSync(path.join(compiledDir, 'package.json'), '{ "type": "module" }\n');

  fs.rmSync(unpackedDir, { recursive: true, force: true });
  fs.mkdirSync(unpackedDir, { recursive: true });
  const manifest = JSON.parse(fs.readFileSync(path.join(sourceDir, 'manifest.json'), 'utf8'));
  manifest.version = packageVersion();
  fs.writeFileSync(path.join(unpackedDir, 'manifest.json'), JSON.stringify(manifest, null, 2) + '\n');
  for (const f of shipped) fs.copyFileSync(path.join(compiledDir, 'src', f), path.join(unpackedDir, f));
  for (const f of fs.readdirSync(path.join(sourceDir, 'static'))) fs.copyFileSync(path.join(sourceDir, 'static', f), path.join(unpackedDir, f));

  const zip = zipPath();
  writeZip(zip, unpackedDir);
  // Read it back: every file there, whole, with the manifest at the top (what the store checks first).
  const entries = new Map(zipEntries(zip).map((e) => [e.name, e]));
  for (const f of fs.readdirSync(unpackedDir)) {
    if (!entries.get(f)?.read().equals(fs.readFileSync(path.join(unpackedDir, f)))) throw new Error(`${zip}: ${f} is missing or differs`);
  }
  log(`built the browser extension into ${path.relative(root, unpackedDir)}/ and ${path.relative(root, zip)} in ${Date.now() - started} ms`);
  return { unpacked: unpackedDir, zip };
}

/**
 * The zip for the Chrome Web Store: dist/browser-extension/'s files, with a
 * manifest without "key", which the store refuses (its listing's id comes
 * from the store's own key). Build the extension first.
 */
export function writeStoreZip(file) {
  const manifest = JSON.parse(fs.readFileSync(path.join(unpackedDir, 'manifest.json'), 'utf8'));
  delete manifest.key;
  writeZip(file, unpackedDir, { 'manifest.json': Buffer.from(`${JSON.stringify(manifest, null, 2)}\n`) });
  return file;
}

/** The browser extension's unit tests, compiled. */
export function browserExtensionTests() {
  const dir = path.join(compiledDir, 'test');
  return fs.readdirSync(dir).filter((f) => f.endsWith('.test.js')).map((f) => path.join(dir, f));
}

/** A zip of every file in dir (flat or nested), deflated; replace gives other contents for some names. */
function writeZip(file, dir, replace = {}) {
  const files = [];
  const walk = (d, prefix) => {
    for (const e of fs.readdirSync(d, { withFileTypes: true }).sort((a, b) => a.name.localeCompare(b.name))) {
      if (e.isDirectory()) walk(path.join(d, e.name), `${prefix}${e.name}/`);
      else files.push({ name: `${prefix}${e.name}`, data: replace[`${prefix}${e.name}`] ?? fs.readFileSync(path.join(d, e.name)) });
    }
  };
  walk(dir, '');
  const locals = [];
  const centrals = [];
  let offset = 0;
  for (const f of files) {
    const deflated = zlib.deflateRawSync(f.data);
    const crc = zlib.crc32(f.data);
    const name = Buffer.from(f.name);
    const head = Buffer.alloc(30);
    head.writeUInt32LE(0x04034b50, 0);
    head.writeUInt16LE(20, 4);
    head.writeUInt16LE(0x0800, 6); // UTF-8 names
    head.writeUInt16LE(8, 8); // deflate
    head.writeUInt32LE(0x00210000, 10); // 1980-01-01 00:00, so the zip is reproducible
    head.writeUInt32LE(crc, 14);
    head.writeUInt32LE(deflated.length, 18);
    head.writeUInt32LE(f.data.length, 22);
    head.writeUInt16LE(name.length, 26);
    locals.push(head, name, deflated);
    const central = Buffer.alloc(46);
    central.writeUInt32LE(0x02014b50, 0);
    central.writeUInt16LE(0x0314, 4); // made by unix, zip 2.0
    central.writeUInt16LE(20, 6);
    central.writeUInt16LE(0x0800, 8);
    central.writeUInt16LE(8, 10);
    central.writeUInt32LE(0x00210000, 12);
    central.writeUInt32LE(crc, 16);
    central.writeUInt32LE(deflated.length, 20);
    central.writeUInt32LE(f.data.length, 24);
    central.writeUInt16LE(name.length, 28);
    central.writeUInt32LE((0o100644 << 16) >>> 0, 38);
    central.writeUInt32LE(offset, 42);
    centrals.push(central, name);
    offset += head.length + name.length + deflated.length;
  }
  const centralSize = centrals.reduce((n, b) => n + b.length, 0);
  const end = Buffer.alloc(22);
  end.writeUInt32LE(0x06054b50, 0);
  end.writeUInt16LE(files.length, 8);
  end.writeUInt16LE(files.length, 10);
  end.writeUInt32LE(centralSize, 12);
  end.writeUInt32LE(offset, 16);
  fs.mkdirSync(path.dirname(file), { recursive: true });
  fs.writeFileSync(file, Buffer.concat([...locals, ...centrals, end]));
}
