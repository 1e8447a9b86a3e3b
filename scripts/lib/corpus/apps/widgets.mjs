// Widgets that keep a native control hidden behind a visible one:
// accessible-autocomplete (GOV.UK's combo box, npm `accessible-autocomplete`)
// on its own example pages as the package ships them (a <select> of 279
// places, hidden, behind a text input with a list of suggestions), and
// flatpickr's date and time pickers (npm `flatpickr`) with altInput, as its
// documentation sets them up (the real input hidden, holding 2026-05-01 and
// 15:30, a visible one showing "1 May 2026" and "3:30 PM"). The flatpickr
// page is written here: the package ships no page of its own.
import { valuesOf } from '../server.mjs';

const flatpickrPage = `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>Book a trip</title>
<link rel="stylesheet" href="/flatpickr/dist/flatpickr.min.css">
<style>body{font:16px system-ui;margin:2em} label{display:block;margin-top:1em} input{font:inherit;padding:.3em}</style></head>
<body><main><h1>Book a trip</h1>
<form method="post" action="/widgets/trip">
  <label for="depart">Departure date</label><input id="depart" name="depart" placeholder="Pick a date">
  <label for="time">Departure time</label><input id="time" name="time" placeholder="Pick a time">
  <p><button type="submit">Book trip</button></p>
</form></main>
<script src="/flatpickr/dist/flatpickr.min.js"></script>
<script>
  flatpickr('#depart', { altInput: true, altFormat: 'j F Y', dateFormat: 'Y-m-d', allowInput: true });
  flatpickr('#time', { enableTime: true, noCalendar: true, altInput: true, altFormat: 'h:i K', dateFormat: 'H:i', allowInput: true });
</script></body></html>`;

export function widgetRoutes() {
  return {
    'GET /widgets/trip': () => ({ body: flatpickrPage }),
    'POST /widgets/trip': () => ({ body: '<!doctype html><title>Trip booked</title><h1>Trip booked</h1>' }),
  };
}

const sent = (method, pathname, want) => ({ received }) => {
  const r = received.filter((x) => x.method === method && x.path === pathname).at(-1);
  const got = r ? (method === 'GET' ? r.query : r.fields) : undefined;
  const ok = !!r && Object.entries(want).every(([k, v]) => (method === 'GET' ? new URLSearchParams(r.query).getAll(k) : valuesOf(r, k)).includes(v));
  return { ok, detail: ok ? undefined : `the server received ${r ? JSON.stringify(got) : 'nothing'} at ${pathname}; expected ${JSON.stringify(want)}` };
};

export function widgetTasks() {
  const hidden = 'hidden and duplicate controls (a widget over a hidden native control)';
  return [
    {
      id: 'accessible-autocomplete/form-single', app: 'accessible-autocomplete', url: '/accessible-autocomplete/examples/form-single.html', ready: "document.querySelector('.autocomplete__input')", effect: 'navigated', failureClass: hidden,
      goal: 'Answer "France" to "What was the last location you visited?" and submit',
      intent: { action: 'submit', fields: { 'What was the last location you visited?': 'France' } },
      check: sent('GET', '/accessible-autocomplete/examples/form-single.html', { 'last-location': 'country:FR' }),
    },
    {
      id: 'accessible-autocomplete/form', app: 'accessible-autocomplete', url: '/accessible-autocomplete/examples/form.html', ready: "document.querySelectorAll('.autocomplete__input').length === 2", effect: 'navigated', failureClass: hidden,
      goal: 'Answer Germany as the last location visited and Japan as the location on the passport, and submit',
      intent: { action: 'submit', fields: { 'What was the last location you visited?': 'Germany', 'What is the location on your passport?': 'Japan' } },
      check: sent('GET', '/accessible-autocomplete/examples/form.html', { 'last-location': 'country:DE', 'passport-location': 'country:JP' }),
    },
    {
      id: 'flatpickr/trip', app: 'flatpickr', url: '/widgets/trip', ready: "document.querySelectorAll('input[type=hidden][name]').length === 2", effect: 'navigated', failureClass: hidden,
      goal: 'Book a trip departing on 2026-05-01 at 3:30 PM',
      intent: { action: 'submit', object: 'trip', fields: { 'Departure date': '2026-05-01', 'Departure time': '3:30 PM' } },
      check: sent('POST', '/widgets/trip', { depart: '2026-05-01', time: '15:30' }),
    },
  ];
}
