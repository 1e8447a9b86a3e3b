// Small file helpers shared by the logic modules.
import * as fs from 'node:fs';
import * as path from 'node:path';
import * as crypto from 'node:crypto';

/**
 * Writes data to a temp file beside file and renames it over file, so a
 * reader (VS Code reading argv.json, the sidecar reading the port file) sees
 * the old or the new content, never half of it. Keeps the old file's mode.
 */
export function writeFileAtomic(file: string, data: string, mode?: number): void {
  let keepMode = mode;
  if (keepMode === undefined) {
    try {
      keepMode = fs.statSync(file).mode & 0o777;
    } catch {
      keepMode = 0o644;
    }
  }
  fs.mkdirSync(path.dirname(file), { recursive: true });
  const tmp = path.join(path.dirname(file), `.${path.basename(file)}.tmp-${crypto.randomBytes(4).toString('hex')}`);
  try {
    fs.writeFileSync(tmp, data, { mode: keepMode, flag: 'wx' }); // never through a file planted under the temp name
    fs.chmodSync(tmp, keepMode); // the umask may have narrowed it
    fs.renameSync(tmp, file);
  } catch (err) {
    fs.rmSync(tmp, { force: true });
    throw err;
  }
}

/** Line and column (1-based) of a character offset in text. */
export function lineColumn(text: string, offset: number): { line: number; column: number } {
  let line = 1;
  let lineStart = 0;
  for (let i = 0; i < offset && i < text.length; i++) {
    if (text.charCodeAt(i) === 10) {
      line++;
      lineStart = i + 1;
    }
  }
  return { line, column: offset - lineStart + 1 };
}
