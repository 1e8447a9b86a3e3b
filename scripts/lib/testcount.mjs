// A node:test reporter that writes one JSON line per test that ran (a leaf:
// suites and tests with subtests are containers, not counted), for
// scripts/test.mjs's tally. Used next to the spec reporter:
//   node --test --test-reporter=spec --test-reporter-destination=stdout \
//        --test-reporter=./scripts/lib/testcount.mjs --test-reporter-destination=FILE
export default async function* testcount(source) {
  const children = []; // children[n]: tests seen at nesting n since the last test at nesting n-1
  for await (const event of source) {
    if (event.type !== 'test:pass' && event.type !== 'test:fail') continue;
    const { name, nesting = 0, skip, todo, file, details } = event.data;
    const parent = (children[nesting + 1] ?? 0) > 0 || details?.type === 'suite';
    children[nesting + 1] = 0;
    children[nesting] = (children[nesting] ?? 0) + 1;
    if (parent) continue;
    const outcome = skip !== undefined && skip !== false ? 'skip' : todo !== undefined && todo !== false ? 'skip' : event.type === 'test:pass' ? 'pass' : 'fail';
    const reason = typeof skip === 'string' ? skip : typeof todo === 'string' ? `todo: ${todo}` : undefined;
    yield `${JSON.stringify({ name, file, outcome, reason })}\n`;
  }
}
