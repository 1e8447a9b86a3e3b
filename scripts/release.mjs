// npm run release -- --dry-run: everything a release does except the
// uploads — the versions agree, the changelog has the version's section,
// the six binaries, six VSIXes, the browser extension's zip and the seven
// npm packages are built into dist/release/ and checked, `npm publish
// --dry-run` of each package, the binaries built a second time are
// byte-identical — then it prints what a real run would publish where.
//
// The other modes are the steps of .github/workflows/release.yml:
//   --preflight [--root DIR]   only the checks of the sources (versions, changelog)
//   --build                    dist/release/, checked
//   --reproduce SHA256SUMS     build the binaries here and compare
//   --publish STORE            github, npm, marketplace, open-vsx or chrome-web-store
// --tag vX.Y.Z names the tag being released (default: the tag a workflow
// runs for, $GITHUB_REF_NAME).
import path from 'node:path';
import { parseArgs } from 'node:util';
import { requireGo } from './lib/build.mjs';
import { buildRelease, npmDryRun, plan, preflight, releaseDir, reproduce } from './lib/release.mjs';
import { publish } from './lib/publish.mjs';

const { values: o } = parseArgs({
  options: {
    'dry-run': { type: 'boolean' },
    preflight: { type: 'boolean' },
    build: { type: 'boolean' },
    reproduce: { type: 'string' },
    publish: { type: 'string' },
    root: { type: 'string' },
    dir: { type: 'string' },
    tag: { type: 'string' },
  },
});
const tag = o.tag ?? (process.env.GITHUB_REF_TYPE === 'tag' ? process.env.GITHUB_REF_NAME : undefined);

async function timed(name, fn) {
  const t0 = Date.now();
  console.log(`\n--- ${name}`);
  const r = await fn();
  console.log(`--- ${name}: done in ${((Date.now() - t0) / 1000).toFixed(1)} s`);
  return r;
}

function checked() {
  const { version, notes } = preflight({ dir: o.root && path.resolve(o.root), tag });
  console.log(`version ${version}: the sources agree${tag ? `, and the tag is ${tag}` : ''}; CHANGELOG.md's section has ${notes.split('\n').length} lines`);
}

async function dryRun() {
  requireGo();
  await timed('preflight: versions and the changelog', checked);
  const built = await timed('build dist/release/ (binaries, VSIXes, the browser extension\'s zip, npm packages)', () => buildRelease({ tag }));
  await timed('npm publish --dry-run, seven packages', () => npmDryRun(built));
  await timed('reproducibility: the six binaries again, from a copy of the source elsewhere', () => {
    const same = reproduce(path.join(releaseDir, 'SHA256SUMS'), { copy: true });
    console.log(`byte-identical: ${same.join(', ')}`);
  });
  console.log(`\n${plan(built).join('\n')}`);
}

const modes = [o['dry-run'], o.preflight, o.build, o.reproduce, o.publish].filter((m) => m !== undefined);
try {
  if (modes.length !== 1) throw new Error('say what to do: --dry-run, --preflight, --build, --reproduce SHA256SUMS or --publish STORE (one of them)');
  if (o.preflight) checked();
  else if (o['dry-run']) await dryRun();
  else if (o.build) {
    requireGo();
    const built = buildRelease({ tag });
    console.log(`built ${built.tag}: ${built.assets.length} release files and ${built.npm.length} npm packages in ${path.relative(process.cwd(), releaseDir)}`);
  } else if (o.reproduce) {
    requireGo();
    console.log(`byte-identical: ${reproduce(path.resolve(o.reproduce)).join(', ')}`);
  } else await publish(o.publish, { dir: o.dir ? path.resolve(o.dir) : releaseDir });
} catch (err) {
  console.error(`release: ${err.message}`);
  process.exit(1);
}
