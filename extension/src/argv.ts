// Native CDP (Tier 2) setup: "remote-debugging-port": "0" in the running
// product's argv.json. The file is JSONC that people edit by hand, so it is
// changed with jsonc-parser's modify + applyEdits: comments, trailing commas,
// a byte order mark, indentation and line ends survive; only the one
// property changes. The value is the string "0" because VS Code passes only
// string values of argv.json to Chromium (a number is ignored silently);
// port 0 lets the OS choose a free port, which Electron then writes to
// DevToolsActivePort in the user data folder (see cdpPort.ts).
//
// The extension marks the key it sets with a comment on the line above
// (MARKER), so that its uninstall hook (uninstall.ts) removes that key and
// never one the user wrote. The first edit copies the file as it was to
// argv.json.browser-coordinator.bak; later edits never overwrite that copy,
// so it keeps the original.
import * as fs from 'node:fs';
import * as jsonc from 'jsonc-parser';
import { writeFileAtomic, lineColumn } from './files';

export const KEY = 'remote-debugging-port';
export const VALUE = '0';
/** The comment above a key the extension set; its uninstall looks for it. */
export const MARKER = '// Set by Browser Coordinator for Tier 2 (VS Code\'s own browser); uninstalling the extension removes it.';
const MARKER_PREFIX = '// Set by Browser Coordinator';
export const BACKUP_SUFFIX = '.browser-coordinator.bak';

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
  | { kind: 'enabled'; value: string; ours: boolean } // a string: Chromium gets --remote-debugging-port=<value>; ours: set by the extension (MARKER above it)
  | { kind: 'ignored'; value: unknown }; // a number or another type: VS Code ignores it

export interface EditResult {
  changed: boolean;
  file: string;
  /** The copy of the file as it was before the extension first changed it (made once, never overwritten). */
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
  const value: unknown = jsonc.getNodeValue(node);
  return typeof value === 'string' ? { kind: 'enabled', value, ours: markerLine(parsed.text, node) !== undefined } : { kind: 'ignored', value };
}

/** The [start, end) of the MARKER line right above the property of valueNode, if there is one. */
function markerLine(text: string, valueNode: jsonc.Node): [number, number] | undefined {
  const property = valueNode.parent;
  if (!property) return undefined;
  const lineStart = text.lastIndexOf('\n', property.offset - 1) + 1;
  if (text.slice(lineStart, property.offset).trim() !== '') return undefined; // something else on the property's line
  const prevEnd = lineStart - 1; // the \n ending the line above
  if (prevEnd < 0) return undefined;
  const prevStart = text.lastIndexOf('\n', prevEnd - 1) + 1;
  const line = text.slice(prevStart, prevEnd).replace(/\r$/, '');
  return line.trim().startsWith(MARKER_PREFIX) ? [prevStart, lineStart] : undefined;
}

/** text with MARKER put on its own line above the property of KEY, indented like it. */
function withMarker(text: string): string {
  const root = jsonc.parseTree(text, [], { allowTrailingComma: true });
  const node = root && jsonc.findNodeAtLocation(root, [KEY]);
  const property = node?.parent;
  if (!node || !property || markerLine(text, node)) return text;
  const lineStart = text.lastIndexOf('\n', property.offset - 1) + 1;
  const indent = text.slice(lineStart, property.offset);
  if (indent.trim() !== '') return text; // the object is on one line: no room for a comment line
  const eol = text.includes('\r\n') ? '\r\n' : '\n';
  return `${text.slice(0, property.offset)}${MARKER}${eol}${indent}${text.slice(property.offset)}`;
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

/**
 * Writes text (through a symlinked argv.json, to its target). The first time
 * the extension changes an existing file, the file as it was is copied to
 * <file>.browser-coordinator.bak; an existing copy is never overwritten.
 */
function write(file: string, before: Parsed | undefined, text: string): string | undefined {
  const real = realPath(file);
  let backup: string | undefined;
  if (before) {
    backup = `${real}${BACKUP_SUFFIX}`;
    try {
      fs.copyFileSync(real, backup, fs.constants.COPYFILE_EXCL);
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
    }
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
  const current: unknown = node && jsonc.getNodeValue(node);
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
  text = withMarker(text);
  const backup = write(file, before, text);
  const was = node ? ` (it was ${JSON.stringify(current)}, a number, which VS Code ignores)` : '';
  return { changed: true, file, backup, message: `set "${KEY}": "${VALUE}" in ${file}${was}` };
}

/** text without KEY and without the MARKER line above it. */
function withoutKey(text: string, node: jsonc.Node): string {
  const marker = markerLine(text, node);
  let t = text;
  if (marker) t = t.slice(0, marker[0]) + t.slice(marker[1]);
  const edits = jsonc.modify(t, [KEY], undefined, { formattingOptions: formattingOf(t) });
  return jsonc.applyEdits(t, edits);
}

/** Removes the key (whatever its value), and the extension's comment above it. A file without it is left alone. */
export function disableNativeCdp(file: string): EditResult {
  const before = read(file);
  const node = before?.root && jsonc.findNodeAtLocation(before.root, [KEY]);
  if (!before || !node) return { changed: false, file, message: `${file} has no "${KEY}"` };
  const backup = write(file, before, withoutKey(before.text, node));
  return { changed: true, file, backup, message: `removed "${KEY}" from ${file}` };
}

/**
 * For the uninstall hook: removes the key only when the extension set it
 * (MARKER above it). A key the user wrote, a file that does not parse and a
 * missing file are left alone.
 */
export function removeOwnKey(file: string): EditResult {
  let before: Parsed | undefined;
  try {
    before = read(file);
  } catch (err) {
    return { changed: false, file, message: `${file} left alone: ${(err as Error).message}` };
  }
  const node = before?.root && jsonc.findNodeAtLocation(before.root, [KEY]);
  if (!before || !node) return { changed: false, file, message: `${file} has no "${KEY}"` };
  if (!markerLine(before.text, node)) return { changed: false, file, message: `${file}: "${KEY}" was not set by Browser Coordinator; left as it is` };
  const backup = write(file, before, withoutKey(before.text, node));
  return { changed: true, file, backup, message: `removed "${KEY}" (set by Browser Coordinator) from ${file}` };
}
