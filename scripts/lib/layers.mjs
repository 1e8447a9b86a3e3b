// The sidecar's layers: which of its packages may never reach which,
// however indirectly. README.md, Development, says why each rule holds; this
// check keeps them held. It reads what the Go toolchain says a package
// depends on (`go list -deps`, production code only: tests may reach across)
// for each operating system the sidecar builds for, since a file for one OS
// can import what the others do not.
import { spawnSync } from 'node:child_process';
import path from 'node:path';
import { root } from './paths.mjs';

const MODULE = 'github.com/browser-coordinator/browser-coordinator/sidecar';

/** Groups of packages (paths under sidecar/), named as the rules name them. */
const PARTS = {
  surfaces: ['cmd/browser-coordinator', 'internal/cli', 'internal/mcpserver', 'internal/mcphttp', 'internal/control'],
  lifecycle: ['internal/coordinator', 'internal/fleet', 'internal/launcher'],
  contract: ['internal/backend'],
  cdp: ['internal/cdp'],
  proxy: ['internal/cdpproxy'],
  engine: ['internal/pagetools'],
  focus: ['internal/pagefocus'],
  tier2: ['internal/vscodetier'],
  bridge: ['internal/everyday', 'internal/nativehost'],
  reach: ['internal/reach'],
  protocol: ['internal/nativemsg'],
  guard: ['internal/access', 'internal/portowner', 'internal/userfile', 'internal/rpccheck'],
};

/** [from, to, why]: no package of `from` may depend on one of `to`. */
export const RULES = [
  ['engine', 'lifecycle', 'the page-tools engine knows no lifecycle'],
  ['engine', 'surfaces', 'the page-tools engine speaks no surface'],
  ['focus', 'lifecycle', 'the page-tools focus knows tabs and events (backend), not the coordinator'],
  ['tier2', 'lifecycle', 'Tier 2 is a connector with a policy, not a lifecycle'],
  ['bridge', 'lifecycle', 'the everyday bridge knows no lifecycle'],
  ['reach', 'bridge', 'the reach policy knows no transport'],
  ['protocol', 'bridge', 'the native-messaging protocol knows no transport'],
  ['protocol', 'cdp', 'the native-messaging protocol knows no CDP'],
  ['contract', 'lifecycle', 'the backend contract knows no connector'],
  ['cdp', 'lifecycle', 'the virtual browser knows no lifecycle'],
  ['cdp', 'proxy', 'the virtual browser knows no proxy'],
  ['cdp', 'surfaces', 'the virtual browser speaks no surface'],
  ['lifecycle', 'surfaces', 'the lifecycle speaks no surface: the edges own the words'],
  ['proxy', 'lifecycle', 'the proxy serves a backend it is handed'],
  ['guard', 'cdp', 'the guard is plain checks'],
  ['guard', 'lifecycle', 'the guard is plain checks'],
  ['guard', 'surfaces', 'the guard is plain checks'],
];

const GOOS = ['linux', 'darwin', 'windows'];

/** The part a package belongs to, or undefined. */
function partOf(pkg) {
  const rel = pkg.startsWith(`${MODULE}/`) ? pkg.slice(MODULE.length + 1) : undefined;
  if (!rel) return undefined;
  return Object.keys(PARTS).find((part) => PARTS[part].some((p) => rel === p || rel.startsWith(`${p}/`)));
}

/**
 * The rules a dependency graph breaks: graph maps a package to every package
 * it depends on (directly or not). Returns one line per broken rule and pair.
 */
export function broken(graph, rules = RULES) {
  const found = [];
  for (const [pkg, deps] of graph) {
    const from = partOf(pkg);
    if (!from) continue;
    for (const [a, b, why] of rules) {
      if (a !== from) continue;
      for (const dep of deps) {
        if (partOf(dep) === b) found.push(`${pkg.slice(MODULE.length + 1)} depends on ${dep.slice(MODULE.length + 1)}: ${why} (${a} -> ${b})`);
      }
    }
  }
  return found;
}

/** The sidecar's production dependency graph for one GOOS. */
function graphFor(goos) {
  const r = spawnSync('go', ['list', '-f', '{{.ImportPath}}{{range .Deps}} {{.}}{{end}}', './sidecar/...'], {
    cwd: root, encoding: 'utf8', env: { ...process.env, GOOS: goos }, maxBuffer: 64 << 20,
  });
  if (r.status !== 0) throw new Error(`go list (GOOS=${goos}) failed: ${r.stderr.trim()}`);
  return new Map(r.stdout.trim().split('\n').map((line) => {
    const [pkg, ...deps] = line.split(' ');
    return [pkg, deps];
  }));
}

/** The lint: every rule held on every OS the sidecar builds for. */
export function layers({ log = console.log } = {}) {
  const seen = new Map(); // a broken rule's line -> the OSes it is broken on
  for (const goos of GOOS) {
    for (const l of broken(graphFor(goos))) seen.set(l, [...(seen.get(l) ?? []), goos]);
  }
  for (const [l, oses] of seen) log(oses.length === GOOS.length ? l : `${l} [GOOS=${oses.join(', ')}]`);
  if (seen.size) log(`the sidecar's layers are broken (above): see README.md, Development, and ${path.join('scripts', 'lib', 'layers.mjs')}`);
  return seen.size === 0;
}
