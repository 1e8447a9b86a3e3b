// npm run build: the sidecar for this machine, or for TARGETS=linux-x64,win32-x64 / TARGETS=all.
import { buildSidecar, allTargets, requireGo } from './lib/build.mjs';
import { hostTarget } from './lib/paths.mjs';
import { buildBrowserExtension } from './lib/browserExtension.mjs';

try {
  requireGo();
  const wanted = process.env.TARGETS === 'all' ? allTargets : (process.env.TARGETS?.split(',').filter(Boolean) ?? [hostTarget()]);
  for (const target of wanted) buildSidecar(target.trim(), { log: console.log });
  buildBrowserExtension({ log: console.log });
} catch (err) {
  // go build has printed its own errors above.
  console.error(`build failed: ${err.message.split('\n')[0]}`);
  process.exit(1);
}
