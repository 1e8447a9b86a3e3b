// Reads the entry list of a zip file (a VSIX) from its central directory, so
// scripts can check what a package holds without an unzip tool.
import fs from 'node:fs';
import zlib from 'node:zlib';

/** The entries of a zip: name, uncompressed size, the unix mode when the packer stored one, and read() for the content. */
export function zipEntries(file) {
  const buf = fs.readFileSync(file);
  let eocd = -1;
  for (let i = buf.length - 22; i >= Math.max(0, buf.length - 22 - 65535); i--) {
    if (buf.readUInt32LE(i) === 0x06054b50) {
      eocd = i;
      break;
    }
  }
  if (eocd < 0) throw new Error(`${file} is not a zip file (no end of central directory)`);
  const count = buf.readUInt16LE(eocd + 10);
  let at = buf.readUInt32LE(eocd + 16);
  const entries = [];
  for (let n = 0; n < count; n++) {
    if (buf.readUInt32LE(at) !== 0x02014b50) throw new Error(`${file}: bad central directory entry ${n}`);
    const madeBy = buf.readUInt16LE(at + 4) >> 8; // 3 = unix
    const method = buf.readUInt16LE(at + 10);
    const compressed = buf.readUInt32LE(at + 20);
    const size = buf.readUInt32LE(at + 24);
    const nameLen = buf.readUInt16LE(at + 28);
    const extraLen = buf.readUInt16LE(at + 30);
    const commentLen = buf.readUInt16LE(at + 32);
    const external = buf.readUInt32LE(at + 38);
    const local = buf.readUInt32LE(at + 42);
    const name = buf.toString('utf8', at + 46, at + 46 + nameLen);
    const read = () => {
      const start = local + 30 + buf.readUInt16LE(local + 26) + buf.readUInt16LE(local + 28);
      const data = buf.subarray(start, start + compressed);
      return method === 8 ? zlib.inflateRawSync(data) : Buffer.from(data);
    };
    entries.push({ name, size, mode: madeBy === 3 ? (external >>> 16) & 0o7777 : undefined, read });
    at += 46 + nameLen + extraLen + commentLen;
  }
  return entries;
}
