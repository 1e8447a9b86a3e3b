// Counting tests across npm test's steps: how many ran, passed, failed and
// were skipped, with each skip's reason, so that a skipped test is never
// reported as passed. Node's test runner reports through testcount.mjs; Go's
// through `go test -json` (test2json events), read here.
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { root } from './paths.mjs';

export class Tally {
  constructor() {
    /** @type {{ group: string, name: string, outcome: 'pass'|'fail'|'skip', reason?: string }[]} */
    this.tests = [];
  }

  add(group, name, outcome, reason) {
    this.tests.push({ group, name, outcome, reason });
  }

  count(filter = () => true) {
    const t = this.tests.filter(filter);
    return {
      ran: t.filter((x) => x.outcome !== 'skip').length,
      passed: t.filter((x) => x.outcome === 'pass').length,
      failed: t.filter((x) => x.outcome === 'fail').length,
      skipped: t.filter((x) => x.outcome === 'skip').length,
    };
  }

  /** The summary lines: totals, per group, then every skip and failure by name. */
  summary() {
    const line = (c) => `${c.ran + c.skipped} tests: ${c.ran} ran (${c.passed} passed, ${c.failed} failed), ${c.skipped} skipped (did not run)`;
    const out = [`all: ${line(this.count())}`];
    for (const group of [...new Set(this.tests.map((t) => t.group))]) out.push(`  ${group}: ${line(this.count((t) => t.group === group))}`);
    const skipped = this.tests.filter((t) => t.outcome === 'skip');
    if (skipped.length) {
      out.push('skipped (these did not run):');
      for (const t of skipped) out.push(`  - ${t.group}: ${t.name}${t.reason ? ` — ${t.reason}` : ''}`);
    }
    const failed = this.tests.filter((t) => t.outcome === 'fail');
    if (failed.length) {
      out.push('failed:');
      for (const t of failed) out.push(`  - ${t.group}: ${t.name}`);
    }
    return out;
  }
}

/**
 * Runs node --test on files (spec output on the terminal) and adds each test
 * to tally under group. Resolves to whether it exited with 0.
 */
export function nodeTests(tally, group, files, { args = [], env = {} } = {}) {
  const out = path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'bc-tally-')), 'tests.jsonl');
  return new Promise((resolve, reject) => {
    const proc = spawn(process.execPath, [
      // --test-force-exit: a file whose tests are over ends even if a
      // failed test left a handle open (an SSE client reconnecting for
      // ever kept a CI run waiting).
      '--test', '--test-force-exit', ...args,
      '--test-reporter=spec', '--test-reporter-destination=stdout',
      `--test-reporter=${pathToFileURL(path.join(root, 'scripts', 'lib', 'testcount.mjs')).href}`, `--test-reporter-destination=${out}`, // a URL: Windows' C:\ reads as a URL scheme
      ...files,
    ], { cwd: root, stdio: 'inherit', env: { ...process.env, ...env } });
    proc.once('error', reject);
    proc.once('exit', (code) => {
      let lines = [];
      try {
        lines = fs.readFileSync(out, 'utf8').split('\n').filter(Boolean).map((l) => JSON.parse(l));
      } catch {
        // no report: the run failed before any test
      }
      fs.rmSync(path.dirname(out), { recursive: true, force: true });
      for (const t of lines) tally.add(group, `${t.file ? `${path.relative(root, t.file)}: ` : ''}${t.name}`, t.outcome, t.reason);
      if (code !== 0 && !lines.some((t) => t.outcome === 'fail')) tally.add(group, `node --test ${files.join(' ')} (exit ${code})`, 'fail');
      resolve(code === 0);
    });
  });
}

/**
 * Runs `go test -json args` and adds each test (subtests too) to tally.
 * Prints the package lines (ok / FAIL), the full output of failed tests and
 * the reason of skipped ones, instead of test2json's events.
 */
export function goTests(tally, group, args, { env = {} } = {}) {
  return new Promise((resolve, reject) => {
    const proc = spawn('go', ['test', '-json', ...args], { cwd: root, stdio: ['ignore', 'pipe', 'inherit'], env: { ...process.env, ...env } });
    proc.once('error', reject);
    const output = new Map(); // "pkg test" → lines
    let buffer = '';
    const handle = (line) => {
      let e;
      try {
        e = JSON.parse(line);
      } catch {
        if (line.trim()) console.log(line); // not test2json: a build error
        return;
      }
      const key = `${e.Package} ${e.Test ?? ''}`;
      if (e.Action === 'output') {
        if (!e.Test) {
          if (/^(ok|FAIL|---|panic|\?)\s/.test(e.Output) || /\[build failed\]|\[setup failed\]/.test(e.Output)) process.stdout.write(e.Output);
          else if (!/^(=== RUN|PASS$|FAIL$|coverage:)/.test(e.Output.trim())) output.set(key, [...(output.get(key) ?? []), e.Output]);
          return;
        }
        output.set(key, [...(output.get(key) ?? []), e.Output]);
        return;
      }
      if (!e.Test || !['pass', 'fail', 'skip'].includes(e.Action)) {
        if (e.Action === 'fail' && !e.Test && output.get(key)?.length) process.stdout.write(output.get(key).join(''));
        return;
      }
      const lines = output.get(key) ?? [];
      output.delete(key);
      const name = `${e.Package.replace(/^github\.com\/browser-coordinator\/browser-coordinator\//, '')}.${e.Test}`;
      if (e.Action === 'fail') {
        process.stdout.write(`--- FAIL: ${name}\n${lines.join('')}`);
        tally.add(group, name, 'fail');
      } else if (e.Action === 'skip') {
        const said = lines.filter((l) => !/^\s*(=== |--- SKIP)/.test(l)).map((l) => l.trim()).filter(Boolean);
        tally.add(group, name, 'skip', said.at(-1)?.replace(/^\S+\.go:\d+: /, ''));
      } else {
        tally.add(group, name, 'pass');
      }
    };
    proc.stdout.setEncoding('utf8');
    proc.stdout.on('data', (chunk) => {
      buffer += chunk;
      let i;
      while ((i = buffer.indexOf('\n')) >= 0) {
        handle(buffer.slice(0, i));
        buffer = buffer.slice(i + 1);
      }
    });
    proc.once('exit', (code) => {
      if (buffer) handle(buffer);
      resolve(code === 0);
    });
  });
}
