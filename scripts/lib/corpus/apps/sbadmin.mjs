// SB Admin 2 (npm `startbootstrap-sb-admin-2`), an admin template as it
// ships: a login, register and forgot-password page whose forms have no
// submit button (their action is a link styled as a button), and a table
// page with DataTables (search as you type, entries per page, pagination,
// none of them in a form) under a navbar with a search form of its own.

const at = (pathname) => async ({ page }) => {
  const now = await page.eval('() => location.pathname + location.search');
  return { ok: now === pathname, detail: now === pathname ? undefined : `the tab is at ${now}, not ${pathname}` };
};

/** DataTables' own state: its info line, the rows shown, the current page. */
const table = (page) => page.eval(`() => ({
  info: document.querySelector('.dataTables_info')?.textContent.trim() ?? '',
  rows: [...document.querySelectorAll('#dataTable tbody tr')].map((tr) => tr.textContent.replace(/\\s+/g, ' ').trim()),
  page: document.querySelector('.paginate_button.active')?.textContent.trim(),
  url: location.pathname + location.search,
})`);

const tableCheck = (pred, why) => async ({ page }) => {
  const t = await table(page);
  const ok = pred(t);
  return { ok, detail: ok ? undefined : `${why}: ${JSON.stringify({ ...t, rows: t.rows.slice(0, 3) })}` };
};

const app = 'sb-admin-2';
const credentials = { 'Email Address': 'ada@example.com', Password: 'correct-horse-42' };

export function sbAdminTasks() {
  return [
    {
      id: 'sb-admin-2/login', app, url: '/sb-admin-2/login.html', effect: 'navigated', failureClass: 'wrong submit (the action is a link styled as a button)',
      goal: 'Log in as ada@example.com with the password correct-horse-42',
      intent: { action: 'sign_in', fields: credentials },
      check: at('/sb-admin-2/index.html'),
    },
    {
      id: 'sb-admin-2/register', app, url: '/sb-admin-2/register.html', effect: 'navigated', failureClass: 'wrong submit (the action is a link styled as a button)',
      goal: 'Create an account for Ada Lovelace, ada@example.com, password correct-horse-42',
      intent: { action: 'register', fields: { 'First Name': 'Ada', 'Last Name': 'Lovelace', 'Email Address': 'ada@example.com', Password: 'correct-horse-42', 'Repeat Password': 'correct-horse-42' } },
      check: at('/sb-admin-2/login.html'),
    },
    {
      id: 'sb-admin-2/forgot-password', app, url: '/sb-admin-2/forgot-password.html', effect: 'navigated', failureClass: 'wrong submit (the action is a link styled as a button)',
      goal: 'Reset the password of ada@example.com',
      intent: { action: 'reset', object: 'password', fields: { 'Email Address': 'ada@example.com' } },
      check: at('/sb-admin-2/login.html'),
    },
    {
      id: 'sb-admin-2/table-page', app, url: '/sb-admin-2/tables.html', ready: "document.querySelector('.dataTables_info')", effect: 'region', failureClass: 'wrong element (pagination)',
      goal: 'Go to page 3 of the employees table',
      intent: { action: 'page', object: 'page', item: '3' },
      check: tableCheck((t) => t.page === '3' && /^Showing 21 to 30 /.test(t.info), 'the table is not on page 3'),
    },
    {
      id: 'sb-admin-2/table-search', app, url: '/sb-admin-2/tables.html', ready: "document.querySelector('.dataTables_info')", effect: 'region', failureClass: 'no tool where the task is (inputs outside a form)',
      goal: 'Filter the employees table to those in Tokyo',
      intent: { action: 'search', object: 'table', fields: { Search: 'Tokyo' } },
      check: tableCheck((t) => t.url === '/sb-admin-2/tables.html' && t.rows.length > 0 && t.rows.every((r) => r.includes('Tokyo')) && /filtered/.test(t.info), 'the table is not filtered to Tokyo'),
    },
    {
      id: 'sb-admin-2/table-length', app, url: '/sb-admin-2/tables.html', ready: "document.querySelector('.dataTables_info')", effect: 'region', failureClass: 'no tool where the task is (inputs outside a form)',
      goal: 'Show 25 employees per page',
      intent: { action: 'choose', object: 'entries', fields: { 'Show entries': '25' } },
      check: tableCheck((t) => t.rows.length === 25, 'the table does not show 25 rows'),
    },
  ];
}
