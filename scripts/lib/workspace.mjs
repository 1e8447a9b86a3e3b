// What an end-to-end test file shares: a private folder (state dirs and
// workspaces below it) and a page server, set up before its tests and
// removed after them.
import { before, after } from 'node:test';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { startPageServer } from './pageserver.mjs';

/**
 * Registers the setup and teardown; returns { pages, work, dirs(name) → { stateDir, cwd },
 * atEnd(fn) }.
 */
export function workspace(prefix) {
  const ends = [];
  const ws = {
    pages: null,
    work: null,
    /** A state dir and a workspace folder (a child MCP's cwd) for one coordinator. */
    dirs(name) {
      const stateDir = path.join(ws.work, `${name}-state`);
      const cwd = path.join(ws.work, `${name}-ws`);
      fs.mkdirSync(cwd, { recursive: true });
      return { stateDir, cwd };
    },
    /**
     * Runs fn after the file's tests, before the folder is removed: a browser whose profile is
     * in it must have exited first, or it writes while the folder goes (ENOTEMPTY). A file's
     * own after() would run after the removal: hooks run in the order they were registered.
     */
    atEnd(fn) {
      ends.push(fn);
    },
  };
  before(async () => {
    ws.pages = await startPageServer();
    ws.work = fs.mkdtempSync(path.join(os.tmpdir(), prefix));
  });
  after(async () => {
    for (const fn of ends.reverse()) await fn();
    await ws.pages?.close();
    if (ws.work) fs.rmSync(ws.work, { recursive: true, force: true });
  });
  return ws;
}
