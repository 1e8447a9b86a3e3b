// npm run vsix: one VSIX per platform, each with its own sidecar binary.
// Cross-compiles the sidecar (CGO off, trimmed, version stamped: see
// lib/build.mjs), compiles the extension, and packs
// dist/browser-coordinator-<target>.vsix with `vsce package --target`.
// VSIX_TARGETS=linux-x64 (comma separated) packs only those.
import { buildSidecar, requireGo } from './lib/build.mjs';
import { compileExtension, packVsix, vsixTargets } from './lib/vsix.mjs';

const started = Date.now();
requireGo();
compileExtension({ log: console.log });
for (const target of vsixTargets()) {
  buildSidecar(target, { log: console.log });
  const { file, size, entries } = packVsix(target, { log: console.log });
  console.log(`${file}: ${(size / 1024 / 1024).toFixed(2)} MiB, ${entries.length} files`);
}
console.log(`done in ${((Date.now() - started) / 1000).toFixed(1)} s`);
