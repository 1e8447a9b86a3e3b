// Native CDP (Tier 2) setup: "remote-debugging-port": "0" in the running
// product's argv.json. The file is JSONC that people edit by hand, so it is
// changed with jsonc-parser's modify + applyEdits: comments, trailing commas,
// a byte order mark, indentation and line ends survive; only the one
// property changes. The value is the string "0" because VS Code passes only
// string values of argv.json to Chromium (a number is ignored silently);
// port 0 lets the OS choose a free port, which Electron then writes to
// DevToolsActivePort in the user data folder (see cdpPort.ts).
import * as fs from 'node:fs';
import * as jsonc from 'jsonc-parser';
import { writeFileAtomic, lineColumn } from './files';

export const KEY = 'remote-debugging-port';
export const VALUE = '0';

const BOM = '\ufeff';

/** An argv.json that does not parse; it is never written. */
export class ArgvParseError extends Error {
  constructor(readonly file: string, readonly line: number, readonly column: number, readonly reason: string) {
    super(`${file}:${line}:${column}: ${reason}; fix or remove that file first (it was not changed)`);
    this.name = 'ArgvParseError';
  }
}

export type ArgvStatus =
  | { kind: 'missing' } // no argv.json: native CDP off
  | { kind: 'absent' } // argv.json without the key: native CDP off
  | { kind: 'enabled'; value: string } // a string: Chromium gets --remote-debugging-port=<value>
  | { kind: 'ignored'; value: unknown }; // a number or another type: VS Code ignores it

export interface EditResult {
  changed: boolean;
  file: string;
  /** Where the content before this edit was copied (only when the file existed and changed). */
  backup?: string;
  message: string;
}

interface Parsed {
  text: string; // without BOM
  bom: boolean;
  root: jsonc.Node | undefined;
}

function read(file: string): Parsed | undefined {
  let raw: string;
  try {
    raw = fs.readFileSync(file, 'utf8');
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw err;
  }
  const bom = raw.startsWith(BOM);
  const text = bom ? raw.slice(1) : raw;
  if (text.trim() === '') return { text, bom, root: undefined };
  const errors: jsonc.ParseError[] = [];
  const root = jsonc.parseTree(text, errors, { allowTrailingComma: true, disallowComments: false });
  if (errors.length > 0) {
    const { line, column } = lineColumn(text, errors[0].offset);
    throw new ArgvParseError(file, line, column, `not valid JSON with comments (${jsonc.printParseErrorCode(errors[0].error)})`);
  }
  if (!root || root.type !== 'object') {
    const { line, column } = lineColumn(text, root?.offset ?? 0);
    throw new ArgvParseError(file, line, column, `the top level is ${root?.type ?? 'empty'}, not an object`);
  }
  return { text, bom, root };
}

/** What argv.json says about remote debugging. Throws ArgvParseError when it does not parse. */
export function argvStatus(file: string): ArgvStatus {
  const parsed = read(file);
  if (!parsed) return { kind: 'missing' };
  const node = parsed.root && jsonc.findNodeAtLocation(parsed.root, [KEY]);
  if (!node) return { kind: 'absent' };
  const value = jsonc.getNodeValue(node);
  return typeof value === 'string' ? { kind: 'enabled', value } : { kind: 'ignored', value };
}

/** The file's own indentation and line ends, so an inserted line looks like its neighbours. */
function formattingOf(text: string): jsonc.FormattingOptions {
  const eol = text.includes('\r\n') ? '\r\n' : '\n';
  const indented = /^([ \t]+)\S/m.exec(text);
  if (!indented || indented[1].startsWith('\t')) return { insertSpaces: false, tabSize: 4, eol };
  return { insertSpaces: true, tabSize: indented[1].length, eol };
}

/** The file a symlinked argv.json points to (dotfile managers link it), so the link survives the rename. */
function realPath(file: string): string {
  try {
    return fs.realpathSync(file);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return file;
    throw err;
  }
}

function write(file: string, before: Parsed | undefined, text: string): string | undefined {
  const real = realPath(file);
  let backup: string | undefined;
  if (before) {
    backup = `${real}.bak`;
    fs.copyFileSync(real, backup);
  }
  writeFileAtomic(real, (before?.bom ? BOM : '') + text);
  return backup;
}

/**
 * Sets "remote-debugging-port": "0" unless a string value is already there.
 * A number (which VS Code ignores) is replaced by "0". A missing or empty
 * file gets a small object. Throws ArgvParseError (file untouched) when the
 * file does not parse.
 */
export function enableNativeCdp(file: string): EditResult {
  const before = read(file);
  const node = before?.root && jsonc.findNodeAtLocation(before.root, [KEY]);
  const current = node && jsonc.getNodeValue(node);
  if (typeof current === 'string') {
    return { changed: false, file, message: `${file} already has "${KEY}": "${current}"` };
  }
  let text: string;
  if (!before || !before.root) {
    const eol = before && before.text.includes('\r\n') ? '\r\n' : '\n';
    text = `{${eol}\t"${KEY}": "${VALUE}"${eol}}${eol}`;
  } else {
    const edits = jsonc.modify(before.text, [KEY], VALUE, { formattingOptions: formattingOf(before.text) });
    text = jsonc.applyEdits(before.text, edits);
  }
  const backup = write(file, before, text);
  const was = node ? ` (it was ${JSON.stringify(current)}, a number, which VS Code ignores)` : '';
  return { changed: true, file, backup, message: `set "${KEY}": "${VALUE}" in ${file}${was}` };
}

/** Removes the key (whatever its value). A file without it is left alone. */
export function disableNativeCdp(file: string): EditResult {
  const before = read(file);
  const node = before?.root && jsonc.findNodeAtLocation(before.root, [KEY]);
  if (!before || !node) return { changed: false, file, message: `${file} has no "${KEY}"` };
  const edits = jsonc.modify(before.text, [KEY], undefined, { formattingOptions: formattingOf(before.text) });
  const backup = write(file, before, jsonc.applyEdits(before.text, edits));
  return { changed: true, file, backup, message: `removed "${KEY}" from ${file}` };
}
