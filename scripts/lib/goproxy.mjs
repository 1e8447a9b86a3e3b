// A Go module proxy in a folder (GOPROXY=file://…), serving this repository's
// module at a version of our choosing, so that `go install
// MODULE/sidecar/cmd/browser-coordinator@VERSION` (or @latest) can be tried
// the way users will run it once the repository is published, without
// publishing anything: the layout of https://go.dev/ref/mod#goproxy-protocol
// ($module/@v/list, .info, .mod, .zip).
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import zlib from 'node:zlib';
import { root } from './paths.mjs';

/** The module path in go.mod. */
export function modulePath() {
  const m = fs.readFileSync(path.join(root, 'go.mod'), 'utf8').match(/^module\s+(\S+)/m);
  if (!m) throw new Error('go.mod has no module line');
  return m[1];
}

/** The module's files: what git tracks (or would) under go.mod's folder that a module zip holds. */
function moduleFiles() {
  // The whole repository, as the module proxy zips it from a tag, less the
  // modules below the root (scripts/cdpclients): a folder with a go.mod of
  // its own is another module, and Go refuses a zip that holds one.
  const out = execFileSync('git', ['ls-files', '-z', '--cached', '--others', '--exclude-standard'], { cwd: root, encoding: 'utf8' });
  const files = out.split('\0').filter((f) => f && fs.existsSync(path.join(root, f)) && fs.statSync(path.join(root, f)).isFile());
  const nested = files.filter((f) => f.endsWith('/go.mod')).map((f) => f.slice(0, -'go.mod'.length));
  return files.filter((f) => !nested.some((dir) => f.startsWith(dir)));
}

/** A zip file of entries [{ name, data }], deflated, with the CRCs Go checks. */
function zip(entries) {
  const locals = [], centrals = [];
  let offset = 0;
  for (const { name, data } of entries) {
    const nameBuf = Buffer.from(name, 'utf8');
    const deflated = zlib.deflateRawSync(data);
    const crc = zlib.crc32(data);
    const header = (sig, central) => {
      const b = Buffer.alloc(central ? 46 : 30);
      let i = 0;
      b.writeUInt32LE(sig, i); i += 4;
      if (central) { b.writeUInt16LE(20, i); i += 2; } // made by
      b.writeUInt16LE(20, i); i += 2; // version needed
      b.writeUInt16LE(0x0800, i); i += 2; // UTF-8 names
      b.writeUInt16LE(8, i); i += 2; // deflate
      b.writeUInt32LE(0, i); i += 4; // time, date
      b.writeUInt32LE(crc, i); i += 4;
      b.writeUInt32LE(deflated.length, i); i += 4;
      b.writeUInt32LE(data.length, i); i += 4;
      b.writeUInt16LE(nameBuf.length, i); i += 2;
      b.writeUInt16LE(0, i); i += 2; // extra
      if (central) {
        i += 8; // comment, disk, internal and external attributes
        b.writeUInt32LE(offset, i + 2);
      }
      return b;
    };
    const local = Buffer.concat([header(0x04034b50, false), nameBuf, deflated]);
    centrals.push(Buffer.concat([header(0x02014b50, true), nameBuf]));
    locals.push(local);
    offset += local.length;
  }
  const central = Buffer.concat(centrals);
  const end = Buffer.alloc(22);
  end.writeUInt32LE(0x06054b50, 0);
  end.writeUInt16LE(entries.length, 8);
  end.writeUInt16LE(entries.length, 10);
  end.writeUInt32LE(central.length, 12);
  end.writeUInt32LE(offset, 16);
  return Buffer.concat([...locals, central, end]);
}

/** Writes the proxy folder dir serving this repository's module as version (e.g. v0.1.0); returns the module path. */
export function writeModuleProxy(dir, version) {
  const mod = modulePath();
  const at = path.join(dir, ...mod.split('/'), '@v');
  fs.mkdirSync(at, { recursive: true });
  fs.writeFileSync(path.join(at, 'list'), `${version}\n`);
  fs.writeFileSync(path.join(at, `${version}.info`), JSON.stringify({ Version: version, Time: new Date().toISOString() }));
  fs.copyFileSync(path.join(root, 'go.mod'), path.join(at, `${version}.mod`));
  const entries = moduleFiles().map((f) => ({ name: `${mod}@${version}/${f}`, data: fs.readFileSync(path.join(root, f)) }));
  fs.writeFileSync(path.join(at, `${version}.zip`), zip(entries));
  return mod;
}
