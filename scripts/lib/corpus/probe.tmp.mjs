import fs from 'node:fs'; import os from 'node:os'; import path from 'node:path';
import { startCorpusServer } from './server.mjs';
import { startChromium } from '../chromium.mjs';
import { attachPage } from './page.mjs';
import { todoApps, todoTasks, todos } from './apps/todomvc.mjs';
const srv = await startCorpusServer();
const work = fs.mkdtempSync(path.join(os.tmpdir(), 'cp-'));
const ch = await startChromium({ profile: path.join(work, 'p') });
const ep = `http://127.0.0.1:${ch.port}`;
const filter = process.argv[2] ? new RegExp(process.argv[2]) : null;
for (const app of todoApps()) {
  if (filter && !filter.test(app.name)) continue;
  if (app.skip) { console.log(app.name, 'SKIP', app.skip); continue; }
  const t = await (await fetch(`${ep}/json/new?${srv.url}${app.path}`, { method: 'PUT' })).json();
  const page = await attachPage(ep, t.id);
  const t0 = Date.now();
  try {
    const tasks = todoTasks(app);
    await tasks[1].setup(page);
    await tasks[4].setup(page);
    const s = await todos(page);
    console.log(app.name, 'OK', Date.now() - t0, 'ms', JSON.stringify(s.items.map(i => (i.completed ? 'x ' : '  ') + i.text)));
  } catch (e) { console.log(app.name, 'FAIL', Date.now() - t0, 'ms', e.message.slice(0, 200)); }
  page.close();
  await fetch(`${ep}/json/close/${t.id}`);
}
await ch.kill(); await srv.close();
