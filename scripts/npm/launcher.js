#!/usr/bin/env node
'use strict';
// The browser-coordinator command of the npm package (its
// bin/browser-coordinator; scripts/lib/npmpkg.mjs puts it there): runs the native
// binary for this machine with the same arguments. stdin, stdout and stderr
// are the binary's own (inherited file descriptors: an MCP stdio stream
// passes untouched), signals are passed on, and the binary's exit code (or
// signal) is this process's. At its first run through npm's bin link it
// replaces itself with the binary (lib/platform.js), so later starts cost
// nothing over the binary's own.
const { spawn } = require('child_process');
const platform = require('../lib/platform.js');

let binary;
try {
  binary = platform.binaryPath();
} catch (err) {
  process.stderr.write(`browser-coordinator: ${err.message}\n`);
  process.exit(1);
}

const child = spawn(binary, process.argv.slice(2), { stdio: 'inherit', windowsHide: false });

const signals = ['SIGINT', 'SIGTERM', 'SIGHUP', ...(process.platform === 'win32' ? ['SIGBREAK'] : [])];
for (const signal of signals) {
  process.on(signal, () => {
    try {
      child.kill(signal);
    } catch {
      // already gone
    }
  });
}

child.on('error', (err) => {
  process.stderr.write(`browser-coordinator: cannot run ${binary}: ${err.message}\n`);
  process.exit(1);
});

child.on('exit', (code, signal) => {
  if (signal) {
    // Die of the same signal, so the caller sees what the binary saw.
    process.removeAllListeners(signal);
    process.kill(process.pid, signal);
    return;
  }
  process.exit(code ?? 1);
});

// The binary is running already: now, on the side, make the next start native.
if (platform.canReplaceLauncher()) {
  const why = platform.replaceLauncher(binary);
  if (why && process.env.BROWSER_COORDINATOR_DEBUG) process.stderr.write(`browser-coordinator: the launcher stays JavaScript: ${why}\n`);
}
