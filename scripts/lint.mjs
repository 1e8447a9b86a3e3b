// npm run lint: the linters npm test runs first (scripts/lib/lint.mjs), alone.
import { LINTERS } from './lib/lint.mjs';
import { ensureNpmDeps } from './lib/setup.mjs';

ensureNpmDeps();
const failed = [];
for (const [name, lint] of LINTERS) {
  const t0 = Date.now();
  console.log(`\n=== ${name}`);
  let ok;
  try {
    ok = lint({ log: console.log });
  } catch (err) {
    console.error(err.message);
    ok = false;
  }
  console.log(`=== ${name}: ${ok ? 'ok' : 'FAILED'} (${((Date.now() - t0) / 1000).toFixed(1)} s)`);
  if (!ok) failed.push(name);
}
if (failed.length) {
  console.error(`\nFAILED: ${failed.join('; ')}`);
  process.exit(1);
}
