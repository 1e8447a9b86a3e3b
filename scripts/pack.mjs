// npm run pack: the npm packages into dist/npm/ — browser-coordinator (the
// command) and @browser-coordinator/<target> (the binaries), as tarballs
// ready for `npm publish` or `npm install -g`. NPM_TARGETS=linux-x64,...
// packs fewer platform packages (default: all six).
import path from 'node:path';
import { requireGo } from './lib/build.mjs';
import { npmTargets, packNpm } from './lib/npmpkg.mjs';
import { hostTarget, root } from './lib/paths.mjs';

try {
  requireGo();
  const { main, platforms } = packNpm({ targets: npmTargets(), log: console.log });
  const rel = (f) => path.relative(root, f);
  const own = platforms[hostTarget()];
  if (own) {
    console.log(`\nInstall from the tarballs (this machine's platform package and the command; on another machine, its own platform package):\n  npm install -g --offline ${rel(own)} ${rel(main)}`);
  }
} catch (err) {
  console.error(`pack failed: ${err.message.split('\n')[0]}`);
  process.exit(1);
}
