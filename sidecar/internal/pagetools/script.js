// The page-tools script. It runs in an isolated world of the page's main
// frame (a JavaScript world of its own that shares only the DOM with the
// page), installed for every new document by
// Page.addScriptToEvaluateOnNewDocument {worldName} and evaluated once into
// the document already there. The page cannot see this world's globals, nor
// change its built-ins: it has its own prototypes, so a page that redefines
// document.querySelectorAll, HTMLFormElement.prototype.submit or
// Array.prototype.map changes only its own world.
//
// What does reach every world is DOM named properties ("clobbering"):
// <input name="submit"> shadows form.submit, <img name="querySelectorAll">
// shadows document.querySelectorAll, <div id="addEventListener"> shadows
// window.addEventListener. So forms, the document and the window are only
// ever used through functions taken from their prototypes, below.
//
// The script describes the page (forms and their fields, repeated lists,
// standalone buttons, WebMCP tools) as plain data; the Go side turns that
// into tools (names, schemas, annotations). Element references stay here, in
// registries keyed by a generation number, never in the DOM.
(function (cfg) {
  'use strict';
  // The target's root frame only: the top of a page, or an out-of-process
  // iframe target's own frame (whose parent is another site, so it has no
  // frameElement). A same-site frame inside it has one and is skipped; the
  // Go side keeps only the root frame's reports in any case.
  if (window.frameElement !== null) return;
  if (Object.prototype.hasOwnProperty.call(globalThis, cfg.key)) return;

  const desc = (p, k) => Object.getOwnPropertyDescriptor(p, k);
  const getter = (p, k) => { const g = desc(p, k).get; return (o) => g.call(o); };
  const method = (p, k) => { const f = p[k]; return (o, ...a) => f.apply(o, a); };

  const D = Document.prototype, El = Element.prototype, Nd = Node.prototype, H = HTMLElement.prototype;
  const F = HTMLFormElement.prototype;
  const docQSA = method(D, 'querySelectorAll');
  const getById = method(D, 'getElementById');
  const docBody = getter(D, 'body');
  const docElement = getter(D, 'documentElement');
  const docTitle = getter(D, 'title');
  const docURL = getter(D, 'URL');
  const activeEl = getter(D, 'activeElement');
  const elementFromPoint = method(D, 'elementFromPoint');
  const readyState = getter(D, 'readyState');
  const qsa = method(El, 'querySelectorAll');
  const qs = method(El, 'querySelector');
  const closest = method(El, 'closest');
  const matches = method(El, 'matches');
  const getAttr = method(El, 'getAttribute');
  const hasAttr = method(El, 'hasAttribute');
  const localName = getter(El, 'localName');
  const elChildren = getter(El, 'children');
  const childCount = getter(El, 'childElementCount');
  const className = getter(El, 'className');
  const elId = getter(El, 'id');
  const rectOf = method(El, 'getBoundingClientRect');
  const checkVisibility = method(El, 'checkVisibility');
  const textContent = getter(Nd, 'textContent');
  const isConnected = getter(Nd, 'isConnected');
  const parentElement = getter(Nd, 'parentElement');
  const childNodes = getter(Nd, 'childNodes');
  const nodeType = getter(Nd, 'nodeType');
  const contains = method(Nd, 'contains');
  const comparePosition = method(Nd, 'compareDocumentPosition');
  const innerTextOf = getter(H, 'innerText');
  const htmlClick = method(H, 'click');
  // click() is HTMLElement's; an SVG element with role=button gets the
  // event a click would send.
  const clickEl = (el) => (el instanceof HTMLElement ? htmlClick(el)
    : dispatch(el, new MouseEvent('click', { bubbles: true, cancelable: true, composed: true })));
  const focusEl = method(H, 'focus');
  const blurEl = method(H, 'blur');
  const nextSibling = getter(El, 'nextElementSibling');
  const prevSibling = getter(El, 'previousElementSibling');
  const selectText = method(HTMLInputElement.prototype, 'select');
  const dispatch = method(EventTarget.prototype, 'dispatchEvent');
  const listen = method(EventTarget.prototype, 'addEventListener');
  const formElements = getter(F, 'elements');
  const formMethod = getter(F, 'method');
  const formAction = getter(F, 'action');
  const formNoValidate = getter(F, 'noValidate');
  const requestSubmit = method(F, 'requestSubmit');
  const setters = {
    input: desc(HTMLInputElement.prototype, 'value').set,
    textarea: desc(HTMLTextAreaElement.prototype, 'value').set,
    select: desc(HTMLSelectElement.prototype, 'value').set,
  };
  const PRECEDING = Node.DOCUMENT_POSITION_PRECEDING, CONTAINS = Node.DOCUMENT_POSITION_CONTAINS;
  const FOLLOWING = Node.DOCUMENT_POSITION_FOLLOWING;

  // Text from the page is cleaned and bounded here to keep payloads small;
  // the Go side cleans it again and marks it as the page's.
  const clean = (s, max) => {
    s = String(s == null ? '' : s).replace(/[\u0000-\u001f\u007f-\u009f]/g, ' ').replace(/\s+/g, ' ').trim();
    return s.length > max ? s.slice(0, max) : s;
  };
  const attr = (el, name, max = cfg.textMax) => clean(getAttr(el, name), max);
  const visible = (el) => { try { return checkVisibility(el); } catch { return true; } };
  // A date picker's calendar (its month select, year field, arrows, week
  // rows and day cells) is the widget's own way to set its date field,
  // never the page's tools or parameters: the field is. These are the
  // calendars' roots in the pickers people use (flatpickr, bootstrap-
  // datepicker, jQuery UI, react-datepicker, Pikaday, daterangepicker,
  // air-datepicker), never a wrapper of the field itself.
  const CALENDARS = '.flatpickr-calendar,.datepicker-dropdown,.datepicker-inline,.ui-datepicker,.react-datepicker-popper,.react-datepicker__month-container,.pika-single,.daterangepicker,.air-datepicker';
  const EXCLUDED = 'nav,header,footer,aside,menu,[role=navigation],[role=menu],[role=menubar],[role=tablist],[role=toolbar],[role=banner],[role=contentinfo],[aria-hidden=true],[inert],' + CALENDARS;
  const HEADINGS = 'h1,h2,h3,h4,h5,h6,[role=heading]';
  // Elements that hold repeated children without being lists of items.
  const NOT_LISTS = new Set(['p', 'span', 'a', 'em', 'strong', 'b', 'i', 'u', 'small', 'label', 'h1', 'h2', 'h3', 'h4', 'h5', 'h6',
    'td', 'th', 'tr', 'thead', 'table', 'button', 'select', 'datalist', 'optgroup', 'svg', 'form', 'fieldset', 'code', 'pre', 'time', 'head', 'script', 'picture', 'video', 'audio']);
  // (:nth-of-type: at least minItems children of one tag.)
  const LIST_CANDIDATES = ':not(' + Array.from(NOT_LISTS).join(',') + '):has(> :nth-of-type(' + cfg.minItems + '))';
  const ACTIONS = 'a[href],button,[role=button],[role=link],input[type=button],input[type=submit]';

  // The text of a node without the form controls inside it (a <label>
  // wrapping a <select> would otherwise read out every option).
  function ownText(node, max) {
    let out = '';
    const walk = (n) => {
      if (out.length > max) return;
      const t = nodeType(n);
      if (t === 3) { out += textContent(n); return; }
      if (t !== 1) return;
      const ln = localName(n);
      if (ln === 'input' || ln === 'select' || ln === 'textarea' || ln === 'button' || ln === 'script' || ln === 'style' || ln === 'option') return;
      for (const c of childNodes(n)) walk(c);
    };
    walk(node);
    return clean(out, max);
  }

  function labelledBy(el) {
    const ids = getAttr(el, 'aria-labelledby');
    if (!ids) return '';
    return clean(ids.split(/\s+/).map((id) => { const l = id && getById(document, id); return l ? ownText(l, cfg.textMax) : ''; }).join(' '), cfg.textMax);
  }

  function describedBy(el) {
    const ids = getAttr(el, 'aria-describedby');
    if (!ids) return '';
    return clean(ids.split(/\s+/).map((id) => { const l = id && getById(document, id); return l ? textContent(l) : ''; }).join(' '), cfg.textMax);
  }

  // The labels of each control, found in one pass over the document's
  // labels (a control's own .labels walks the whole document each time).
  let labelIndex = null;
  function labelsOf(el) {
    if (!labelIndex) return el.labels;
    return labelIndex.get(el) || [];
  }
  function indexLabels() {
    const m = new Map();
    for (const l of docQSA(document, 'label')) {
      const c = l.control;
      if (!c) continue;
      let a = m.get(c);
      if (!a) m.set(c, (a = []));
      a.push(l);
    }
    return m;
  }

  function fieldLabel(el) {
    const lb = labelledBy(el);
    if (lb) return lb;
    const labels = labelsOf(el);
    if (labels && labels.length) return clean(Array.from(labels, (l) => ownText(l, cfg.textMax)).join(' '), cfg.textMax);
    return '';
  }

  function buttonLabel(el) {
    return attr(el, 'aria-label') || labelledBy(el) || (localName(el) === 'input' ? clean(el.value || attr(el, 'alt'), cfg.textMax) : clean(textContent(el), cfg.textMax)) || attr(el, 'title');
  }

  // Prominence, coarse so that small layout changes do not change it:
  // size (log2 of the visible area), above the fold, inside main content.
  function prominence(el, vis) {
    if (!vis) return 0;
    const r = rectOf(el);
    const area = Math.max(0, r.width) * Math.max(0, r.height);
    let s = Math.round(Math.log2(1 + area));
    if (r.top + window.scrollY < window.innerHeight) s += 4;
    if (closest(el, 'main,[role=main]')) s += 2;
    return s;
  }

  // The heading nearest before el in document order (binary search over all
  // headings, which are in document order), and the one inside it.
  function precedingHeading(headings, el) {
    let lo = 0, hi = headings.length - 1, found = -1;
    while (lo <= hi) {
      const mid = (lo + hi) >> 1;
      const pos = comparePosition(el, headings[mid]);
      if ((pos & PRECEDING) && !(pos & CONTAINS)) { found = mid; lo = mid + 1; } else hi = mid - 1;
    }
    return found >= 0 ? clean(textContent(headings[found]), cfg.textMax) : '';
  }

  function options(select) {
    const out = [];
    let count = 0;
    for (const o of select.options) {
      if (o.disabled || o.value === '') continue;
      count++;
      if (out.length < cfg.maxOptions) out.push({ v: clean(o.value, cfg.valueMax), l: clean(o.label || textContent(o), cfg.valueMax) });
    }
    return [out, count];
  }

  const SKIP_TYPES = new Set(['hidden', 'submit', 'button', 'reset', 'image', 'file']);

  // Credentials: password fields, and fields the page marks as holding a
  // password, a one-time code or a card's number or code.
  const CRED_AUTOCOMPLETE = /(^|\s)(current-password|new-password|one-time-code|cc-number|cc-csc)(\s|$)/i;
  const isCredential = (el) => localName(el) === 'input' && (el.type === 'password' || CRED_AUTOCOMPLETE.test(getAttr(el, 'autocomplete') || ''));
  // Where a submit goes: the button's formaction, else the form's action;
  // and how (a dialog form sends nothing anywhere).
  const submitsWith = (form, submitter) => {
    const own = submitter && hasAttr(submitter, 'formaction');
    const m = submitter && hasAttr(submitter, 'formmethod') ? submitter.formMethod : formMethod(form);
    return { action: own ? submitter.formAction : formAction(form), method: m };
  };
  const originOf = (u) => {
    try { const x = new URL(u); return x.protocol === 'http:' || x.protocol === 'https:' ? x.origin : ''; } catch { return ''; }
  };
  // The origin a submit with submitter sends the form to, when it is not
  // the page's own; else ''.
  const crossOrigin = (form, submitter) => {
    const { action, method: m } = submitsWith(form, submitter);
    if (m === 'dialog') return '';
    const to = originOf(action);
    return to !== '' && to !== originOf(docURL(document)) ? to : '';
  };
  const TEXTUAL = new Set(['text', 'search', 'email', 'url', 'tel', 'password', '']);

  function describeField(el, kind) {
    const d = {
      tag: localName(el), type: kind === 'select' ? (el.multiple ? 'select-multiple' : 'select') : (localName(el) === 'textarea' ? 'textarea' : el.type),
      name: attr(el, 'name'), pname: attr(el, 'toolparamname'), ptitle: attr(el, 'toolparamtitle'), pdesc: attr(el, 'toolparamdescription'),
      label: fieldLabel(el), aria: attr(el, 'aria-label'), ph: attr(el, 'placeholder'), adesc: attr(el, 'aria-description') || describedBy(el),
      title: attr(el, 'title'), id: clean(elId(el), cfg.textMax),
      required: !!el.required, cred: isCredential(el),
    };
    if (localName(el) === 'input') {
      for (const a of ['min', 'max', 'step']) { const v = attr(el, a, cfg.valueMax); if (v) d[a] = v; }
      const p = getAttr(el, 'pattern');
      if (p != null && p.length <= 500) d.pattern = p;
    }
    if (localName(el) === 'input' || localName(el) === 'textarea') {
      if (el.minLength >= 0) d.minLength = el.minLength;
      if (el.maxLength >= 0) d.maxLength = el.maxLength;
    }
    // Default values (the page's, not what anyone typed since: the schema
    // must not change as fields are filled in) only where they are
    // constrained: numbers, dates, choices; never text, never a password.
    if (!TEXTUAL.has(d.type) && d.type !== 'textarea' && kind === 'input') d.value = clean(el.defaultValue, cfg.valueMax);
    d.empty = kind === 'input' ? el.defaultValue === '' : false;
    return d;
  }

  function describeForm(form, fid, headings) {
    const declared = hasAttr(form, 'toolname');
    const vis = visible(form);
    const els = Array.from(formElements(form)).filter((el) => !closest(el, CALENDARS));
    const fields = [], regFields = [];
    const groups = new Map(); // name → field index, for radios and same-named checkboxes
    const checkNames = new Map();
    for (const el of els) {
      if (localName(el) === 'input' && el.type === 'checkbox' && el.name) checkNames.set(el.name, (checkNames.get(el.name) || 0) + 1);
    }
    let submit = null, files = 0;
    const { natives, widgets } = pairWidgets(els);
    for (const el of els) {
      const ln = localName(el);
      if (widgets.has(el)) continue; // a widget's visible input: its native control is the field
      const widget = natives.get(el);
      if (widget) {
        if (fields.length >= cfg.maxFields) break;
        const [d, rf] = describeWidget(el, widget);
        fields.push(d);
        regFields.push(rf);
        continue;
      }
      if (ln === 'input' && el.type === 'file' && !el.disabled) {
        files++;
        const d = cfg.files && fields.length < cfg.maxFields ? describeFile(el, declared) : null;
        if (d) { fields.push(d); regFields.push({ kind: 'file', el }); }
        continue;
      }
      if (ln === 'button' || (ln === 'input' && (el.type === 'submit' || el.type === 'image'))) {
        if (!submit && el.type === 'submit' || !submit && el.type === 'image') submit = el;
        continue;
      }
      if (ln !== 'input' && ln !== 'select' && ln !== 'textarea') continue;
      if (ln === 'input' && SKIP_TYPES.has(el.type)) continue;
      if (el.disabled || el.readOnly) continue;
      if (!declared && !visible(el) && !(ln === 'input' && (el.type === 'checkbox' || el.type === 'radio') && Array.from(labelsOf(el)).some(visible))) continue;
      if (fields.length >= cfg.maxFields) break;
      if (ln === 'input' && (el.type === 'radio' || (el.type === 'checkbox' && el.name && checkNames.get(el.name) > 1))) {
        addToGroup(el, fields, regFields, groups);
        continue;
      }
      if (ln === 'select') {
        const d = describeField(el, 'select');
        [d.options, d.optionCount] = options(el);
        const opts = Array.from(el.options);
        const def = opts.find((o) => o.defaultSelected) || (el.multiple ? null : opts.find((o) => !o.disabled));
        d.value = def ? clean(def.value, cfg.valueMax) : '';
        fields.push(d);
        regFields.push({ kind: el.multiple ? 'multi' : 'select', el });
        continue;
      }
      const d = describeField(el, 'input');
      if (ln === 'input' && el.type === 'checkbox') { d.checked = el.defaultChecked; delete d.value; }
      fields.push(d);
      regFields.push({ kind: ln === 'input' && el.type === 'checkbox' ? 'check' : 'text', el, setter: ln === 'textarea' ? setters.textarea : setters.input });
    }
    const action = submit ? null : actionOf(form);
    const enter = submit || action ? -1 : loneTextField(regFields);
    const legend = qs(form, 'legend');
    const inner = qs(form, HEADINGS);
    const out = {
      id: fid, declared,
      label: labelledBy(form) || attr(form, 'aria-label') || attr(form, 'title'),
      submit: submit || action ? buttonLabel(submit || action) : '',
      legend: legend ? ownText(legend, cfg.textMax) : '',
      inner: inner ? clean(textContent(inner), cfg.textMax) : '',
      heading: precedingHeading(headings, form),
      formName: attr(form, 'name') || clean(elId(form), cfg.textMax),
      method: submitsWith(form, submit).method, crossOrigin: crossOrigin(form, submit), files, search: !!(closest(form, '[role=search]') || getAttr(form, 'role') === 'search' || fields.some((f) => f.type === 'search')),
      score: prominence(form, vis), fields,
    };
    if (declared) {
      out.toolName = attr(form, 'toolname', 200);
      out.toolDescription = attr(form, 'tooldescription', cfg.descMax);
      out.autoSubmit = hasAttr(form, 'toolautosubmit');
    }
    return [out, { form, fields: regFields, submit, action, enter }];
  }

  // A file field (cfg.files: the engine may attach local files), shown, or
  // hidden behind a widget's visible button beside it ("Choose file", whose
  // label is the field's); null for one a person cannot reach.
  function describeFile(el, declared) {
    const widget = visible(el) ? null : Array.from(elChildren(parentElement(el) || el)).find((b) => b !== el && localName(b) === 'button' && visible(b));
    if (!declared && !visible(el) && !widget) return null;
    const d = describeField(el, 'input');
    d.multiple = !!el.multiple;
    d.accept = attr(el, 'accept', cfg.valueMax);
    if (!d.label && widget) d.label = clean(Array.from(labelsOf(widget), (l) => ownText(l, cfg.textMax)).join(' '), cfg.textMax);
    return d;
  }

  // A radio button, or a checkbox of a same-named group: an option of its
  // group's field (made at its first button).
  function addToGroup(el, fields, regFields, groups) {
    const key = el.type + ':' + el.name;
    let i = groups.get(key);
    const opt = { v: clean(choiceValue(el), cfg.valueMax), l: fieldLabel(el) };
    if (i === undefined) {
      const d = describeField(el, 'input');
      d.type = el.type === 'radio' ? 'radio' : 'checkbox-group';
      d.options = []; d.optionCount = 0;
      // A group's label is its fieldset's legend or its aria-labelledby.
      const fs = closest(el, 'fieldset');
      const legend = fs && qs(fs, 'legend');
      d.label = legend ? ownText(legend, cfg.textMax) : '';
      const grp = closest(el, '[role=radiogroup],[role=group]');
      if (grp) d.label = d.label || attr(grp, 'aria-label') || labelledBy(grp);
      d.value = '';
      i = fields.length;
      groups.set(key, i);
      fields.push(d);
      regFields.push({ kind: el.type === 'radio' ? 'radio' : 'checks', els: [] });
    }
    const d = fields[i];
    d.optionCount++;
    if (d.options.length < cfg.maxOptions) d.options.push(opt);
    if (el.required) d.required = true;
    if (el.defaultChecked) d.value = d.type === 'radio' ? opt.v : (d.value ? d.value + ',' : '') + opt.v;
    regFields[i].els.push(el);
  }

  // A choice's value: its value attribute; one without (whose value reads
  // "on") is told by its label, as the page's own script tells it.
  const choiceValue = (el) => (hasAttr(el, 'value') ? el.value : (clean(fieldLabel(el), cfg.valueMax) || el.value));

  // A form without a submit control: the one link or button inside it that
  // reads as its action (the only one, else the only one styled as the
  // primary action), as a person would click it.
  function actionOf(form) {
    const cands = [];
    for (const a of qsa(form, 'a[href],button[type=button],[role=button],input[type=button]')) {
      if (a.disabled || getAttr(a, 'aria-disabled') === 'true' || !visible(a) || !buttonLabel(a)) continue;
      cands.push(a);
    }
    if (cands.length === 1) return cands[0];
    const primary = cands.filter((a) => /(^|[\s_-])(primary|submit)([\s_-]|$)/i.test(String(className(a))));
    return primary.length === 1 ? primary[0] : null;
  }

  // A form with neither: Enter in its one text field submits it (its
  // index among the fields), or -1.
  function loneTextField(regFields) {
    const texts = [];
    regFields.forEach((f, i) => { if (f.kind === 'text' && localName(f.el) === 'input' && TEXTUAL.has(f.el.type)) texts.push(i); });
    return texts.length === 1 ? texts[0] : -1;
  }

  // Widgets that keep a native control hidden behind a visible text input
  // (a combo box over a <select>, a date picker over its real input): the
  // native control, with the name the page sends, is the field; the visible
  // input beside it (its sibling, or the one input inside its sibling) is
  // how a person sets it. A plain hidden value (a token) has no label and
  // no placeholder and is no widget's.
  function pairWidgets(els) {
    const natives = new Map(), widgets = new Set();
    for (const n of els) {
      const ln = localName(n);
      const input = ln === 'input' && (n.type === 'hidden' || TEXTUAL.has(n.type) || n.type === 'date' || n.type === 'time');
      if (ln !== 'select' && !input || ln === 'select' && n.multiple || n.disabled || !hasAttr(n, 'name')) continue;
      if (n.type !== 'hidden' && visible(n)) continue;
      if (input && !hasAttr(n, 'placeholder') && !labelFor(n)) continue;
      const w = besideInput(n);
      if (w && !widgets.has(w)) { natives.set(n, w); widgets.add(w); }
    }
    return { natives, widgets };
  }
  const isTextInput = (el) => localName(el) === 'input' && TEXTUAL.has(el.type) && el.type !== 'password' && !el.disabled && visible(el);
  function besideInput(n) {
    for (const sib of [nextSibling(n), prevSibling(n)]) {
      if (!sib) continue;
      if (isTextInput(sib)) return sib;
      const ln = localName(sib);
      if (ln !== 'div' && ln !== 'span') continue;
      const inside = Array.from(qsa(sib, 'input')).filter(isTextInput);
      if (inside.length === 1) return inside[0];
    }
    return null;
  }
  // The text of a <label for> naming el (a hidden input is not labelable,
  // so its label has no control).
  let forIndex = null; // id → its <label for>, built once per discovery
  function labelFor(el) {
    const id = elId(el);
    if (!id) return '';
    if (!forIndex) {
      forIndex = new Map();
      for (const l of docQSA(document, 'label[for]')) { const f = getAttr(l, 'for'); if (!forIndex.has(f)) forIndex.set(f, l); }
    }
    const l = forIndex.get(id);
    return l ? ownText(l, cfg.textMax) : '';
  }

  function describeWidget(n, w) {
    const isSelect = localName(n) === 'select';
    const d = describeField(n, isSelect ? 'select' : 'input');
    d.label = d.label || labelFor(n) || fieldLabel(w);
    d.aria = d.aria || attr(w, 'aria-label');
    d.ph = d.ph || attr(w, 'placeholder');
    d.required = d.required || !!w.required;
    if (isSelect) {
      [d.options, d.optionCount] = options(n);
      d.value = '';
      return [d, { kind: 'select', el: n, w }];
    }
    d.type = 'text';
    delete d.value;
    d.empty = true;
    return [d, { kind: 'widget', el: n, w, setter: setters.input }];
  }

  // An item's action: the item itself when it is a link or button, else
  // its main action, the first link or button outside any form (a list of
  // forms is no list of items) that carries text a person reads (letters
  // or digits, not only an aria-label) and is no toggle: a mail row's
  // subject, not the star, checkbox-like or archive icon before or after
  // it. A shown one before a hidden one; the first of all when none reads.
  const READS = /[\p{L}\p{N}]/u;
  const TOGGLE_ROLES = new Set(['checkbox', 'switch', 'menuitemcheckbox', 'radio']);
  const shownText = (el) => (localName(el) === 'input' ? String(el.value || '') : textContent(el));
  const isToggle = (el) => hasAttr(el, 'aria-pressed') || hasAttr(el, 'aria-checked') || TOGGLE_ROLES.has(getAttr(el, 'role'));
  function itemAction(item) {
    if (matches(item, ACTIONS)) return item;
    let first = null, reads = null;
    for (const b of qsa(item, ACTIONS)) {
      if (closest(b, 'form')) continue;
      if (!first) first = b;
      if (isToggle(b) || !READS.test(shownText(b))) continue;
      if (visible(b)) return b;
      if (!reads) reads = b;
    }
    return reads || first;
  }

  // A container whose children repeat (same tag and class) and each hold a
  // link or a button: results, threads, rows.
  function findLists(body, headings) {
    const found = [];
    // The selector engine picks the elements with enough children, much
    // faster than a walk over every element from this world.
    for (const c of qsa(body, LIST_CANDIDATES)) {
      if (NOT_LISTS.has(localName(c))) continue;
      const kids = elChildren(c);
      // Cheap first: the children's most common tag, then their classes.
      const tags = new Map();
      for (const k of kids) { const t = localName(k); tags.set(t, (tags.get(t) || 0) + 1); }
      let itemTag = '', tn = 0;
      for (const [t, m] of tags) if (m > tn) { itemTag = t; tn = m; }
      // A row of buttons is a toolbar, not a list of items (its buttons
      // may become tools of their own).
      if (tn < cfg.minItems || tn < kids.length * 0.6 || itemTag === 'button' || itemTag === 'input') continue;
      const sigs = new Map();
      for (const k of kids) { if (localName(k) !== itemTag) continue; const s = itemTag + '.' + className(k); sigs.set(s, (sigs.get(s) || 0) + 1); }
      let sig = '', n = 0;
      for (const [s, m] of sigs) if (m > n) { sig = s; n = m; }
      if (n < cfg.minItems || n < kids.length * 0.6) continue;
      let withAction = 0, first = null, disclosing = 0;
      for (const k of kids) {
        if (localName(k) + '.' + className(k) !== sig) continue;
        const a = itemAction(k);
        if (a) { withAction++; if (!first) first = a; if (hasAttr(a, 'aria-expanded')) disclosing++; }
      }
      // (Items that open by a disclosure are expand_section's options.)
      if (withAction < n * 0.8 || disclosing >= n * 0.8) continue;
      if (closest(c, EXCLUDED) || closest(c, 'form')) continue;
      const vis = visible(c);
      if (!vis) continue;
      found.push({ el: c, sig, count: n, first, score: prominence(c, vis) + Math.min(8, n) });
    }
    // The best few, none inside another chosen one.
    found.sort((a, b) => b.score - a.score);
    const chosen = [];
    for (const f of found) {
      if (chosen.length >= cfg.maxLists) break;
      if (chosen.some((o) => contains(o.el, f.el) || contains(f.el, o.el))) continue;
      chosen.push(f);
    }
    chosen.sort((a, b) => (comparePosition(a.el, b.el) & FOLLOWING ? -1 : 1));
    const caption = (c) => { const cap = localName(c) === 'tbody' ? qs(parentElement(c), 'caption') : null; return cap ? clean(textContent(cap), cfg.textMax) : ''; };
    return chosen.map((f, id) => {
      const c = f.el;
      const itemEl = Array.from(elChildren(c)).find((k) => localName(k) + '.' + className(k) === f.sig);
      return [{
        id, tag: localName(c), itemTag: localName(itemEl), count: f.count, score: f.score,
        label: attr(c, 'aria-label') || labelledBy(c) || caption(c),
        heading: precedingHeading(headings, c),
        hint: clean(elId(c) + ' ' + className(c), cfg.textMax), itemHint: clean(className(itemEl), cfg.textMax),
        action: buttonLabel(f.first),
      }, { el: c, sig: f.sig }];
    });
  }

  function findButtons(body, lists) {
    const out = [], reg = [];
    const seen = new Set();
    let total = 0;
    for (const b of qsa(body, 'button,input[type=button],input[type=submit],[role=button]')) {
      if ((b.form !== undefined && b.form !== null) || closest(b, 'form')) continue;
      if (closest(b, EXCLUDED) || lists.some((l) => contains(l.el, b))) continue;
      if (b.disabled || hasAttr(b, 'disabled') || getAttr(b, 'aria-disabled') === 'true') continue;
      // (A disclosure is expand_section's.)
      const pop = getAttr(b, 'aria-haspopup');
      if (hasAttr(b, 'aria-expanded') && (!pop || pop === 'false')) continue;
      const label = buttonLabel(b);
      if (!label || !visible(b)) continue;
      total++;
      if (seen.has(label)) continue;
      seen.add(label);
      if (out.length < cfg.maxButtons) { out.push({ id: reg.length, label, score: prominence(b, true) }); reg.push({ el: b }); }
    }
    return total <= cfg.maxButtons ? [out, reg] : [[], []];
  }

  // ---- Outside forms: repeated items with actions of their own (a todo's
  // checkbox, its delete button, its label to double-click and edit),
  // switches (filters, tabs, pagination) and fields grouped by their
  // container (a lone field whose Enter does the work). Each call of these
  // says what it expects to see, and verify() tells whether it did.

  const TEXT_FIELD = 'input:not([type]),input[type=text],input[type=search],input[type=email],input[type=url],input[type=tel]';
  const GROUP_FIELDS = TEXT_FIELD + ',input[type=number],input[type=date],input[type=password],select,textarea';
  const CHECKBOX = 'input[type=checkbox],[role=checkbox],[role=switch]';
  const ITEM_BUTTONS = 'button,[role=button],input[type=button]';
  const CHROME = 'nav,aside,menu,[role=navigation],[role=menu],[role=menubar],[role=toolbar],[role=banner],[role=contentinfo],[aria-hidden=true],[inert],' + CALENDARS;
  const SECTIONING = 'article,aside,main,nav,section,[role=main],[role=region],[role=article],[role=dialog],dialog';
  const GROUPING = '[role=form],[role=search],fieldset,dialog,[role=dialog],section,article,header,footer,main,aside,[role=region],[role=group]';
  const CURRENT = /(^|[\s_-])(selected|active|current|is-active|is-selected|is-current)($|[\s_-])/i;
  // (A link without href that a script handles reads as one to a person.)
  const SWITCH_ACTIONS = ACTIONS + ',a';
  const PAGING = /paginat|pager|paging|page-numbers/i;
  const DELETING = /^(delete|remove|destroy|trash|discard|×|✕|✖|x|🗑)$/i;
  const GENERIC_CLASS = /^(btn|button|icon|fa|fas|far|sm|lg|xs|small|large|primary|secondary|default|link|outline|ghost|pull|right|left|float|js|ui|item|action|actions|control|\w)$/i;

  // Page chrome: navigation, menus, and a header or footer of the page
  // itself (one inside a section or an article is part of that content).
  function inChrome(el) {
    if (closest(el, CHROME)) return true;
    const hf = closest(el, 'header,footer');
    const up = hf && parentElement(hf);
    return !!hf && !(up && closest(up, SECTIONING));
  }
  const usable = (el) => !el.disabled && !hasAttr(el, 'disabled') && getAttr(el, 'aria-disabled') !== 'true' && !hasAttr(el, 'hidden');
  // A per-item control may show only while its item is hovered (a todo's
  // delete button): its parent is what must be visible.
  const parentShown = (el) => { const p = parentElement(el); return !!p && visible(p); };
  const isCurrent = (el) => {
    const ac = getAttr(el, 'aria-current');
    return (ac !== null && ac !== 'false') || getAttr(el, 'aria-selected') === 'true' || getAttr(el, 'aria-pressed') === 'true' || CURRENT.test(getAttr(el, 'class') || '');
  };
  const hintOf = (el) => clean((elId(el) || '') + ' ' + (getAttr(el, 'class') || ''), cfg.textMax);

  // A button's key among its item's: its label, else its class words.
  function controlKey(b) {
    const l = buttonLabel(b);
    if (l) return { key: 'l:' + l, label: l, hint: '' };
    const words = String(getAttr(b, 'class') || '').split(/[\s_-]+/).filter((w) => /^[a-z]+$/i.test(w) && !GENERIC_CLASS.test(w));
    return words.length ? { key: 'c:' + words.join(' '), label: '', hint: words.join(' ') } : null;
  }

  // What an item holds: its checkbox, its buttons by key, its text field
  // (an edit field, often hidden until its label is double-clicked), and
  // its label as a person reads it.
  // Controls inside a form are its fields, not the item's own (a list of
  // sections that each hold a form is no list of items with actions).
  function itemParts(item) {
    const p = { check: null, buttons: new Map(), edit: null, labelEl: null, text: '' };
    const inForm = (el) => !!closest(el, 'form');
    for (const el of qsa(item, CHECKBOX)) if (usable(el) && parentShown(el) && !inForm(el)) { p.check = el; break; }
    for (const b of qsa(item, ITEM_BUTTONS)) {
      if (b === p.check || !usable(b) || !parentShown(b) || inForm(b)) continue;
      const k = controlKey(b);
      if (k && !p.buttons.has(k.key)) p.buttons.set(k.key, { el: b, label: k.label, hint: k.hint });
    }
    for (const el of qsa(item, TEXT_FIELD)) if (usable(el) && !el.readOnly && !inForm(el)) { p.edit = el; break; }
    for (const l of qsa(item, 'label')) if (visible(l) && ownText(l, cfg.valueMax)) { p.labelEl = l; break; }
    if (p.labelEl) p.text = ownText(p.labelEl, cfg.valueMax);
    else {
      const a = qs(item, 'a[href]');
      p.text = (a && visible(a) ? clean(textContent(a), cfg.valueMax) : '') || ownText(item, cfg.valueMax);
    }
    return p;
  }

  // A container the page drew anew (a framework that renders the whole
  // list again) is found again by its tag and id, else its class.
  function live(r) {
    if (isConnected(r.el)) return true;
    const tag = localName(r.el), id = elId(r.el), cls = getAttr(r.el, 'class');
    for (const c of docQSA(document, tag)) {
      if (id ? elId(c) === id : getAttr(c, 'class') === cls) { r.el = c; return true; }
    }
    return false;
  }
  // The items of container c: its children of the item tag, shown.
  const itemsOf = (r) => Array.from(elChildren(r.el)).filter((k) => localName(k) === r.itemTag && visible(k));
  const SEMANTIC_LIST = new Set(['ul', 'ol', 'tbody']);
  const NOT_ITEMS = new Set(['script', 'template', 'style', 'noscript']);

  // The containers worth a look: the parents of the items that hold a
  // checkbox or a button outside any form (found from the controls, which
  // are few, rather than by testing every element of a large page).
  function itemContainers(body) {
    const out = new Set();
    for (const el of qsa(body, CHECKBOX + ',' + ITEM_BUTTONS)) {
      if (closest(el, 'form')) continue;
      let item = closest(el, 'li,tr,[role=listitem],[role=row]');
      if (!item) {
        // A repeated block: the nearest ancestor with a sibling of its tag.
        for (let p = parentElement(el), depth = 0; p && p !== body && depth < 6; p = parentElement(p), depth++) {
          const up = parentElement(p);
          if (up && Array.from(elChildren(up)).some((k) => k !== p && localName(k) === localName(p))) { item = p; break; }
        }
      }
      const c = item && parentElement(item);
      if (c && c !== body && contains(body, c)) out.add(c);
    }
    return out;
  }

  // A container whose shown children repeat (one tag) and hold the same
  // actions of their own: a checkbox, a button with the same label or
  // class, an edit field.
  function findItems(body, headings) {
    const found = [];
    for (const c of itemContainers(body)) {
      const tag = localName(c);
      if (tag !== 'tbody' && NOT_LISTS.has(tag)) continue;
      // (Some frameworks keep markers among the items: <script>s.)
      const kids = Array.from(elChildren(c)).filter((k) => !NOT_ITEMS.has(localName(k)));
      const tags = new Map();
      for (const k of kids) { const t = localName(k); tags.set(t, (tags.get(t) || 0) + 1); }
      let itemTag = '', tn = 0;
      for (const [t, m] of tags) if (m > tn) { itemTag = t; tn = m; }
      const semantic = SEMANTIC_LIST.has(tag) || getAttr(c, 'role') === 'list' || getAttr(c, 'role') === 'rowgroup';
      if (tn < (semantic ? 1 : 2) || tn < kids.length * 0.6 || itemTag === 'button' || itemTag === 'input') continue;
      if (inChrome(c) || closest(c, 'form') || !visible(c)) continue;
      const r = { el: c, itemTag };
      const items = itemsOf(r);
      if (!items.length) continue;
      const parts = items.map(itemParts);
      const need = Math.ceil(items.length * 0.8);
      const actions = [];
      if (parts.filter((p) => p.check).length >= need) actions.push({ kind: 'toggle', label: '' });
      const keys = new Map();
      for (const p of parts) for (const [k, b] of p.buttons) { const e = keys.get(k) || { n: 0, b }; e.n++; keys.set(k, e); }
      for (const [k, e] of keys) if (e.n >= need && actions.length < 6) actions.push({ kind: 'button', key: k, label: e.b.label, hint: e.b.hint });
      // Editable: an edit field (shown, or hidden until its label is
      // double-clicked), or a label of no control beside other actions
      // (an app that makes the field at the double-click).
      const editable = (p) => (p.edit && (p.labelEl || visible(p.edit))) || (p.labelEl && !p.labelEl.control && actions.length);
      if (parts.filter(editable).length >= need) actions.push({ kind: 'edit', label: '' });
      // One button per item that does not delete (Details, Open) is an
      // item's way in: a list's open_<item>, not an action of its own.
      const buttons = actions.filter((a) => a.kind === 'button');
      if (!actions.length || (actions.length === 1 && buttons.length === 1 && !DELETING.test(buttons[0].label || buttons[0].hint))) continue;
      const labels = [], checked = [];
      for (const p of parts) {
        if (!p.text || labels.includes(p.text)) continue;
        if (labels.length < cfg.maxOptions) { labels.push(p.text); checked.push(!!(p.check && (p.check.checked || getAttr(p.check, 'aria-checked') === 'true'))); }
      }
      if (!labels.length) continue;
      found.push({ r, items, labels, checked, actions, score: prominence(c, true) + Math.min(8, items.length) });
    }
    // The innermost: an item's own actions belong to the nearest repeat.
    const kept = found.filter((f) => !found.some((o) => o !== f && contains(f.r.el, o.r.el)));
    return kept.slice(0, cfg.maxLists).map((f, id) => {
      f.r.actions = f.actions;
      return [{
        id, tag: localName(f.r.el), itemTag: f.r.itemTag, count: f.items.length, score: f.score,
        label: attr(f.r.el, 'aria-label') || labelledBy(f.r.el), heading: precedingHeading(headings, f.r.el),
        hint: hintOf(f.r.el), itemHint: clean(getAttr(f.items[0], 'class'), cfg.textMax),
        labels: f.labels, checked: f.checked, actions: f.actions.map((a) => ({ kind: a.kind, label: a.label || '', hint: a.hint || '' })),
      }, f.r];
    });
  }

  // Where switches may be: the rows that hold an element marked current,
  // tab lists, and what is named pagination (a few, found directly rather
  // than by testing every element of a large page).
  function switchCandidates(body) {
    const out = new Set();
    const MARKED = '[aria-current]:not([aria-current=false]),[aria-selected=true],[aria-pressed=true],.selected,.active,.current,.is-active,.is-selected,.is-current';
    for (const m of qsa(body, MARKED)) {
      const kid = closest(m, 'li') || m;
      const c = parentElement(kid);
      if (c && c !== body) out.add(c);
    }
    for (const c of qsa(body, '[role=tablist]')) out.add(c);
    for (const c of qsa(body, '[class*=paginat],[class*=pager],[aria-label*=paginat i],[id*=paginat]')) {
      out.add(c);
      const inner = qs(c, 'ul,ol');
      if (inner) out.add(inner);
    }
    return out;
  }

  // A row of links or buttons of which one is the current one (filters,
  // tabs), or pages: each child holds one action with a short label.
  function findSwitches(body, headings, taken) {
    const out = [];
    for (const c of switchCandidates(body)) {
      if (out.length >= cfg.maxLists) break;
      if (closest(c, 'form') || closest(c, '[aria-hidden=true],[inert]') || taken.some((t) => contains(t, c) || contains(c, t))) continue;
      const kids = Array.from(elChildren(c));
      if (kids.length < 2 || kids.length > cfg.maxOptions) continue;
      const opts = [];
      let bad = false, current = -1;
      for (const k of kids) {
        const a = matches(k, SWITCH_ACTIONS) ? k : null;
        const inner = a ? [a] : Array.from(qsa(k, SWITCH_ACTIONS));
        if (inner.length > 1) { bad = true; break; }
        if (!inner.length) { if (isCurrent(k)) current = -2; continue; }
        const el = inner[0];
        if (!visible(el) || !usable(el)) continue;
        const label = buttonLabel(el);
        if (!label || label.length > 30 || opts.some((o) => o.label === label)) { bad = true; break; }
        if (isCurrent(k) || isCurrent(el)) current = opts.length;
        opts.push({ el, label });
      }
      if (bad || opts.length < 2) continue;
      const words = hintOf(c) + ' ' + attr(c, 'aria-label') + ' ' + hintOf(parentElement(c) || c);
      const numbers = opts.filter((o) => /^\d+$/.test(o.label)).length;
      const paging = PAGING.test(words) || (numbers >= 2 && numbers >= opts.length * 0.5);
      const tabs = getAttr(c, 'role') === 'tablist';
      if (!paging && !tabs && (current === -1 || inChrome(c))) continue;
      if (!visible(c)) continue;
      out.push([{
        id: out.length, kind: paging ? 'page' : tabs ? 'tab' : 'choice', options: opts.map((o) => o.label),
        current: current >= 0 ? opts[current].label : '', label: attr(c, 'aria-label') || labelledBy(c),
        heading: precedingHeading(headings, c), hint: hintOf(c), score: prominence(c, true),
      }, { el: c, opts }]);
    }
    return out;
  }

  // The container a field outside any form belongs to: the nearest
  // grouping element (a role=form, a fieldset, a section, a header…), or
  // one that holds a heading.
  function groupBox(el, body) {
    for (let p = parentElement(el); p && p !== body; p = parentElement(p)) {
      if (matches(p, GROUPING) || qs(p, HEADINGS)) return p;
    }
    return body;
  }

  // The first labelled button after field in box (isTaken(b): another
  // tool's).
  function hasButtonAfter(box, field, isTaken) {
    for (const b of qsa(box, ITEM_BUTTONS + ',input[type=submit]')) {
      if (!(comparePosition(field, b) & FOLLOWING) || closest(b, 'form') || !usable(b) || !visible(b) || isTaken(b)) continue;
      if (buttonLabel(b)) return b;
    }
    return null;
  }

  // A field outside any form as a parameter: its description and its
  // registry entry.
  function groupField(el) {
    const ln = localName(el);
    const d = describeField(el, ln === 'select' ? 'select' : 'input');
    if (ln === 'select') { [d.options, d.optionCount] = options(el); d.value = ''; }
    if (!d.label && !d.aria) d.label = rowLabel(el);
    return [d, { kind: ln === 'select' ? 'select' : 'text', el, setter: ln === 'textarea' ? setters.textarea : ln === 'select' ? setters.select : setters.input }];
  }

  // A field with no label in a table row (parameters laid out as a table)
  // is named by the row's first cell, its first line.
  function rowLabel(el) {
    const cell = closest(el, 'td,th');
    const row = cell && parentElement(cell);
    const first = row && elChildren(row)[0];
    if (!first || first === cell || contains(first, el)) return '';
    return clean(innerTextOf(first).split('\n').find((l) => l.trim()) || '', cfg.textMax).replace(/\s*\*$/, '');
  }

  // A group of fields outside a form, as the page description and the
  // registry hold it.
  function groupOf(fid, box, els, button, more, headings, open) {
    const fields = [], regFields = [];
    for (const el of els) { const [d, rf] = groupField(el); fields.push(d); regFields.push(rf); }
    const legend = localName(box) === 'fieldset' ? qs(box, 'legend') : null;
    const inner = qs(box, HEADINGS);
    const first = els[0] || box;
    const search = !more.unlock && (fields.some((f) => f.type === 'search') || !!closest(first, '[role=search]') || (fields.length > 0 && /search|filter|query/i.test(hintOf(first) + ' ' + fields[0].label + ' ' + fields[0].aria + ' ' + fields[0].ph)));
    return [{
      id: fid, group: true, enter: !!more.enter, pick: !!more.pick, unlock: more.unlock ? buttonLabel(more.unlock) : '', declared: false,
      label: labelledBy(box) || attr(box, 'aria-label') || blockName(box, open), submit: button ? buttonLabel(button) : '',
      legend: legend ? ownText(legend, cfg.textMax) : '', inner: inner ? clean(textContent(inner), cfg.textMax) : '',
      heading: precedingHeading(headings, box), formName: '', hint: els.length ? hintOf(first) + ' ' + attr(first, 'name') : '',
      method: '', crossOrigin: '', files: 0, search,
      score: prominence(box, true), fields,
    }, { group: true, box, fields: regFields, submit: button, enter: !!more.enter, pick: !!more.pick, search, unlock: more.unlock || null, unlockLabel: more.unlock ? buttonLabel(more.unlock) : '' }];
  }

  // Fields outside any form, by container, with the button that follows
  // them there; a lone text field with no button is one whose Enter does
  // the work (a new todo). A field shown by an open disclosure whose own
  // container has no button after it belongs with the disclosure's block
  // (an API explorer's operation: its parameters, then "Execute").
  function findGroups(body, headings, taken, fid, open) {
    const boxes = new Map();
    const isTaken = takenBy(taken, open, body);
    for (const el of qsa(body, GROUP_FIELDS)) {
      if (el.form || closest(el, 'form') || !usable(el) || el.readOnly || !visible(el)) continue;
      if (closest(el, CHROME) && !closest(el, '[role=search]') || isTaken(el)) continue;
      let box = groupBox(el, body);
      if (open.length && !hasButtonAfter(box, el, isTaken)) box = openBlock(el, open, body) || box;
      if (!boxes.has(box)) boxes.set(box, []);
      const a = boxes.get(box);
      if (a.length < cfg.maxFields) a.push(el);
    }
    // A container with no button and several fields (a table's search
    // and its page size): each search field (Enter) and each select (its
    // change) is a tool of its own.
    const split = [];
    for (const [box, els] of boxes) {
      if (els.length < 2 || hasButtonAfter(box, els[els.length - 1], isTaken)) { split.push([box, els]); continue; }
      for (const el of els) if (localName(el) === 'select' || (matches(el, TEXT_FIELD) && /search|filter|query/i.test(el.type + ' ' + hintOf(el) + ' ' + fieldLabel(el) + ' ' + attr(el, 'aria-label') + ' ' + attr(el, 'placeholder')))) split.push([box, [el]]);
    }
    const out = [];
    for (const [box, els] of split) {
      if (out.length >= 8) break;
      const button = hasButtonAfter(box, els[els.length - 1], isTaken);
      const enter = !button && els.length === 1 && matches(els[0], TEXT_FIELD);
      const pick = !button && els.length === 1 && localName(els[0]) === 'select';
      if (!button && !enter && !pick) continue;
      out.push(groupOf(fid + out.length, box, els, button, { enter, pick }, headings, open));
    }
    return out;
  }

  // ---- Disclosures: buttons that show a section of the page and say
  // whether it is shown (aria-expanded, a <details>'s <summary>); menus and
  // combo boxes (which pop up, rather than show a section) are not.
  const DISCLOSURES = 'button[aria-expanded],[role=button][aria-expanded],a[aria-expanded],details > summary';
  const isExpanded = (el) => (localName(el) === 'summary' ? !!parentElement(el).open : getAttr(el, 'aria-expanded') === 'true');
  // (innerText: its parts read apart, "GET /pet/{id} Find a pet".)
  const discLabel = (el) => attr(el, 'aria-label') || labelledBy(el) || clean(innerTextOf(el), cfg.valueMax) || attr(el, 'title');
  // The page's disclosures a person reaches (one taken out of the tab
  // order repeats another for the mouse: an arrow beside the summary).
  function disclosures(body) {
    const out = [];
    for (const el of qsa(body, DISCLOSURES)) {
      const pop = getAttr(el, 'aria-haspopup');
      if (pop && pop !== 'false' || getAttr(el, 'role') === 'combobox' || getAttr(el, 'tabindex') === '-1') continue;
      if (closest(el, 'form') || inChrome(el) || !usable(el) || !visible(el)) continue;
      out.push(el);
    }
    return out;
  }
  // The block an open disclosure shows, for an element in it: its nearest
  // ancestor that holds an open disclosure before it, or null.
  function openBlock(el, open, body) {
    const before = open.filter((d) => comparePosition(d, el) & FOLLOWING);
    if (!before.length) return null;
    for (let p = parentElement(el); p && p !== body; p = parentElement(p)) if (before.some((d) => contains(p, d))) return p;
    return null;
  }
  // A block's name: its open disclosure's label, its longest run of plain
  // words ("GET /pet/{petId} Find pet by ID" is "Find pet by ID").
  function blockLabel(box, open) {
    // (The last open disclosure in the box before its content.)
    const first = qs(box, GROUP_FIELDS + ',' + ITEM_BUTTONS);
    let d = null;
    for (const x of open) if (contains(box, x) && (!first || x === first || contains(x, first) || comparePosition(x, first) & FOLLOWING)) d = x;
    if (!d) return '';
    let best = [], run = [];
    for (const w of discLabel(d).split(' ')) {
      if (/^[\p{L}][\p{L}'’-]*$/u.test(w)) { run.push(w); if (run.length > best.length) best = run.slice(); } else run = [];
    }
    return best.join(' ');
  }
  // The name of the block an open disclosure shows, for a box that is it
  // or is inside it; '' for others.
  function blockName(box, open) {
    if (!open.length) return '';
    const b = open.some((d) => contains(box, d)) ? box : openBlock(box, open, docBody(document));
    return b ? blockLabel(b, open) : '';
  }
  // Whether el is another tool's (inside a found list or switch), unless
  // it is in a block an open disclosure shows inside that one (an
  // operation opened inside a list of sections).
  const takenBy = (taken, open, body) => (el) => {
    if (!taken.some((t) => contains(t, el))) return false;
    const b = open.length ? openBlock(el, open, body) : null;
    return !b || taken.some((t) => contains(t, el) && (t === b || !contains(t, b)));
  };

  // The closed disclosures, as a switch whose options are their labels.
  function findDisclosures(body, headings, closed, id) {
    const opts = [], seen = new Set();
    for (const el of closed) {
      const label = discLabel(el);
      if (!label || seen.has(label)) continue;
      seen.add(label);
      opts.push({ el, label });
    }
    if (!opts.length) return [];
    return [[{
      id, kind: 'disclosure', options: opts.slice(0, cfg.maxOptions).map((o) => o.label), count: opts.length, current: '',
      label: '', heading: precedingHeading(headings, opts[0].el), hint: '', score: prominence(opts[0].el, true),
    }, { el: body, opts, disclosure: true }]];
  }

  // Fields a button turns on ("Try it out", "Edit"): a block whose fields
  // are all disabled, or an open disclosure's block with no field, that
  // has such a button. Its tool clicks it, fills the fields in and clicks
  // the button that then follows them.
  const UNLOCK = /^(try|edit|enable|unlock|modify|change)\b/i;
  function findUnlocks(body, headings, taken, fid, open) {
    const out = [];
    const isTaken = takenBy(taken, open, body);
    for (const b of qsa(body, ITEM_BUTTONS)) {
      if (out.length >= 8) break;
      if (!UNLOCK.test(buttonLabel(b)) || closest(b, 'form') || !usable(b) || !visible(b) || inChrome(b) || isTaken(b)) continue;
      const block = open.length ? openBlock(b, open, body) : null;
      const box = block || groupBox(b, body);
      if (box === body || out.some((o) => o[1].box === box)) continue;
      const els = boxFields(box).slice(0, cfg.maxFields);
      if (els.length ? !els.every((el) => el.disabled) : !block) continue;
      out.push(groupOf(fid + out.length, box, els, null, { unlock: b }, headings, open));
    }
    // An open disclosure's block without fields whose fields were turned
    // on (its "Try it out" now reads "Cancel"): its action is its first
    // button that neither shows, cancels nor turns fields on.
    for (const b of open.length ? qsa(body, ITEM_BUTTONS) : []) {
      if (out.length >= 8) break;
      if (hasAttr(b, 'aria-expanded') || closest(b, 'form') || !usable(b) || !visible(b) || inChrome(b) || isTaken(b)) continue;
      const label = buttonLabel(b);
      if (!label || NOT_ACTION.test(label) || UNLOCK.test(label)) continue;
      const block = openBlock(b, open, body);
      if (!block || out.some((o) => o[1].box === block || contains(o[1].box, block) || contains(block, o[1].box)) || boxFields(block).length) continue;
      out.push(groupOf(fid + out.length, block, [], b, {}, headings, open));
    }
    return out;
  }
  // The fields of a box outside any form, shown, whether on or off.
  const boxFields = (box) => Array.from(qsa(box, GROUP_FIELDS)).filter((el) => !el.form && !closest(el, 'form') && !el.readOnly && visible(el));

  // Items, switches and field groups outside forms, into page and reg.
  // Answers the elements they take (so no standalone button repeats one)
  // and whether a found list is one of them: a list whose items' first
  // button is a per-item action (a todo's delete) is offered as those
  // actions, not as "open"; a list of links stays.
  function findOutside(body, headings, page, reg) {
    const items = findItems(body, headings);
    page.items = items.map((x) => x[0]);
    reg.items = items.map((x) => x[1]);
    const switches = findSwitches(body, headings, reg.items.map((r) => r.el));
    page.switches = switches.map((x) => x[0]);
    reg.switches = switches.map((x) => x[1]);
    const all = disclosures(body);
    const open = all.filter(isExpanded);
    for (const [d, r] of findDisclosures(body, headings, all.filter((el) => !isExpanded(el)), page.switches.length)) {
      page.switches.push(d);
      reg.switches.push(r);
    }
    const taken = reg.items.concat(reg.switches.filter((r) => !r.disclosure)).map((r) => ({ el: r.el }));
    const takenEls = taken.map((t) => t.el);
    for (const [d, r] of findUnlocks(body, headings, takenEls, reg.forms.length, open)) {
      page.forms.push(d);
      reg.forms.push(r);
      takenEls.push(r.box);
      taken.push({ el: r.unlock || r.submit });
    }
    for (const [d, r] of findGroups(body, headings, takenEls, reg.forms.length, open)) {
      page.forms.push(d);
      reg.forms.push(r);
      if (r.submit) taken.push({ el: r.submit });
    }
    const claims = (el) => reg.switches.some((r) => r.el === el) || reg.items.some((r) => r.el === el && !qs(el, 'a[href]'));
    return { taken, claims };
  }

  // Where a person would click el: its centre, when el (or what is inside
  // it) is what is there; else null (the engine then clicks it by script).
  function aim(el) {
    let r = rectOf(el);
    if (r.width <= 0 || r.height <= 0) return null;
    if (r.bottom < 0 || r.top > window.innerHeight || r.right < 0 || r.left > window.innerWidth) {
      method(El, 'scrollIntoView')(el, { block: 'center', inline: 'nearest' });
      r = rectOf(el);
    }
    const x = r.left + r.width / 2, y = r.top + r.height / 2;
    const hit = elementFromPoint(document, x, y);
    return hit && (hit === el || contains(el, hit)) ? { x, y } : null;
  }

  // What a call expects to see, by its watch, for verify().
  const expects = new Map();
  const bodyText = () => { const b = docBody(document); return b ? innerTextOf(b) : ''; };
  const occurrences = (hay, s) => { if (!s) return 0; let n = 0; for (let i = hay.indexOf(s); i >= 0; i = hay.indexOf(s, i + s.length)) n++; return n; };
  const expect = (watch, e) => { expects.set(watch, e); setTimeout(() => expects.delete(watch), 120000); };

  async function callGroup(r, req) {
    if (!isConnected(r.box)) return { error: 'gone' };
    if (r.unlock) return callUnlock(r, req);
    const fields = req.values.map((x) => [r.fields[x.f], x.v, x.f]);
    for (const [f] of fields) if (!f || !isConnected(f.el)) return { error: 'gone' };
    for (const [f, v, i] of fields) { const msg = precheck(f, v); if (msg) return { invalid: [{ f: i, message: msg }] }; }
    if ((r.pick || r.enter) && fields.length !== 1) return { invalid: [{ f: 0, message: 'is required' }] };
    if (r.pick) {
      // A select on its own: choosing is the action, the page's change its effect.
      const watch = watchStart();
      expect(watch, { kind: 'text', text: '', page: bodyText(), url: docURL(document) });
      fill(fields[0][0], fields[0][1]);
      return { ok: true, submitted: true, watch, verify: true };
    }
    // A field whose Enter does the work is typed into by the keyboard
    // (the engine's, after this answer), so that its change event comes
    // at the Enter as a person's would.
    if (r.enter) { focusEl(fields[0][0].el); selectText(fields[0][0].el); } else for (const [f, v] of fields) fill(f, v);
    await tick();
    // The text typed should show up on the page (a new todo); a search
    // shows what matches it, so any change of the page is its effect.
    const text = !r.search && fields.length === 1 && fields[0][0].kind === 'text' && !isCredential(fields[0][0].el) ? String(fields[0][1]).trim() : '';
    const watch = watchStart();
    const page = bodyText();
    expect(watch, { kind: 'text', text, count: occurrences(page, text), page, url: docURL(document), ...marks(fields.map(([f]) => f.el)) });
    if (!r.enter) {
      if (!r.submit || !isConnected(r.submit) || r.submit.disabled) return { error: 'gone' };
      return { ok: true, submitted: true, watch, verify: true, click: personClick(r.submit, fields.map(([f]) => f.el)) };
    }
    return { ok: true, submitted: true, watch, type: String(fields[0][1]), pressEnter: true, verify: true };
  }

  // Words of a button that undoes or leaves rather than acts.
  const NOT_ACTION = /^(cancel|close|reset|clear|back|dismiss|collapse|copy|hide)\b/i;
  // The button a block's action is once its fields are on: the first one
  // after its last field (in a block without fields, the first) that
  // neither shows, cancels nor turns fields on, or null.
  function actionAfter(r, els) {
    const from = els.length ? els[els.length - 1] : null;
    for (const b of qsa(r.box, ITEM_BUTTONS + ',input[type=submit]')) {
      if (b === r.unlock || hasAttr(b, 'aria-expanded') || (from && !(comparePosition(from, b) & FOLLOWING)) || closest(b, 'form') || !usable(b) || !visible(b)) continue;
      const label = buttonLabel(b);
      if (label && !NOT_ACTION.test(label) && !UNLOCK.test(label)) return b;
    }
    return null;
  }

  // A block whose fields a button turns on: the button clicked (unless
  // they are on already), the fields filled in, the action that follows
  // them clicked; the page's change is its effect.
  async function callUnlock(r, req) {
    const fields = req.values.map((x) => [r.fields[x.f], x.v, x.f]);
    for (const [f, v, i] of fields) { if (!f) return { error: 'gone' }; const msg = precheck(f, v); if (msg) return { invalid: [{ f: i, message: msg }] }; }
    const on = () => { const els = boxFields(r.box); return els.every((el) => !el.disabled) && actionAfter(r, els) ? els : null; };
    if (!on()) {
      if (!isConnected(r.unlock)) r.unlock = Array.from(qsa(r.box, ITEM_BUTTONS)).find((b) => buttonLabel(b) === r.unlockLabel) || r.unlock;
      if (!isConnected(r.unlock) || !usable(r.unlock)) return { error: 'gone' };
      clickEl(r.unlock);
      if (!(await waitFor(on, 2000))) return { error: 'locked' };
    }
    // The page may have drawn its fields anew: the same ones, by position.
    const els = on();
    if (!els || els.length !== r.fields.length) return { error: 'stale' };
    r.fields.forEach((f, i) => { f.el = els[i]; });
    for (const [f, v] of fields) fill(f, v);
    await tick();
    const action = actionAfter(r, els);
    if (!action) return { error: 'locked' };
    const watch = watchStart();
    expect(watch, { kind: 'text', text: '', page: bodyText(), url: docURL(document), ...marks(els) });
    return { ok: true, submitted: true, watch, verify: true, click: personClick(action, els) };
  }

  // Where the engine's mouse clicks button, as a person does: the focus
  // leaves the last field first, which some fields wait for before they
  // tell the page their value (a debounced input). Where the button cannot
  // be aimed at, the field is left and the button clicked here; null then.
  function personClick(button, els) {
    const at = aim(button);
    if (at) return at;
    const a = activeEl(document);
    if (a && els.includes(a)) blurEl(a);
    clickEl(button);
    return null;
  }

  // Fields the page marks invalid (aria-invalid, or a class that says so),
  // and what it says of them.
  const INVALID = /(^|[\s_-])(invalid|is-invalid|has-error|error)($|[\s_-])/i;
  const invalidNow = (el) => isConnected(el) && (getAttr(el, 'aria-invalid') === 'true' || INVALID.test(getAttr(el, 'class') || ''));
  const marks = (els) => ({ fields: els, invalid: els.map(invalidNow) });
  function newlyInvalid(e) {
    const out = [];
    (e.fields || []).forEach((el, i) => {
      if (e.invalid[i] || !invalidNow(el)) return;
      out.push(clean(attr(el, 'title') || describedBy(el) || el.validationMessage || 'marked invalid', cfg.textMax));
    });
    return out;
  }

  // The item of a collection labelled label, and its parts, or null.
  function findItem(r, label) {
    if (!live(r)) return null;
    for (const item of itemsOf(r)) { const p = itemParts(item); if (p.text === label) return [item, p]; }
    return null;
  }
  const itemLabels = (r) => (live(r) ? itemsOf(r).map((i) => itemParts(i).text).filter(Boolean) : []);
  const countLabel = (r, label) => itemLabels(r).filter((t) => t === label).length;
  const hover = (el) => {
    for (const t of ['mouseover', 'mouseenter', 'mousemove']) dispatch(el, new MouseEvent(t, { bubbles: t !== 'mouseenter', cancelable: true, composed: true }));
  };
  const stateOf = (item, p) => clean(getAttr(item, 'class'), 200) + '|' + (p.check ? p.check.checked + getAttr(p.check, 'aria-checked') : '') + '|' + clean(textContent(item), 500);
  const waitFor = async (pred, ms) => {
    const end = performance.now() + ms;
    for (;;) { const v = pred(); if (v || performance.now() > end) return v; await new Promise((res) => setTimeout(res, 20)); }
  };

  async function callItem(r, req) {
    if (!live(r)) return { error: 'stale' };
    const a = r.actions[req.action];
    const found = a && findItem(r, req.item);
    if (!found) return { missing: itemLabels(r).slice(0, cfg.maxOptions) };
    const [item, p] = found;
    const count = countLabel(r, req.item);
    if (a.kind === 'toggle') {
      if (!p.check) return { error: 'gone' };
      const was = !!(p.check.checked || getAttr(p.check, 'aria-checked') === 'true');
      const watch = watchStart();
      expect(watch, { kind: 'toggle', r, label: req.item, was });
      const at = aim(p.check);
      if (!at) { focusEl(p.check); clickEl(p.check); }
      return { ok: true, submitted: true, watch, verify: true, click: at };
    }
    if (a.kind === 'button') {
      const b = p.buttons.get(a.key);
      if (!b) return { error: 'gone' };
      const watch = watchStart();
      expect(watch, { kind: DELETING.test(a.label || a.hint) ? 'gone' : 'changed', r, label: req.item, count, state: stateOf(item, p) });
      hover(item);
      clickEl(b.el);
      return { ok: true, submitted: true, watch, verify: true };
    }
    // Edit: double-click the label when the field is hidden, then type.
    if (p.labelEl && !(p.edit && visible(p.edit))) {
      hover(item);
      dispatch(p.labelEl, new MouseEvent('dblclick', { bubbles: true, cancelable: true, composed: true, detail: 2 }));
    }
    const field = await waitFor(() => {
      const f = activeEl(document);
      if (f && matches(f, TEXT_FIELD) && contains(r.el, f)) return f;
      for (const el of qsa(r.el, TEXT_FIELD)) if (visible(el) && usable(el) && (contains(item, el) || !isConnected(item))) return el;
      return null;
    }, 1000);
    if (!field) return { error: 'noedit' };
    focusEl(field);
    selectText(field);
    const watch = watchStart();
    expect(watch, { kind: 'renamed', r, label: req.item, text: String(req.text).trim(), count });
    return { ok: true, submitted: true, watch, type: String(req.text), pressEnter: true, verify: true };
  }

  // A switch's option by its label (found again when the page rendered
  // the switch anew).
  function optionOf(r, label) {
    const o = r.opts.find((x) => x.label === label);
    if (o && isConnected(o.el)) return o;
    if (!live(r)) return null;
    for (const el of qsa(r.el, SWITCH_ACTIONS)) if (buttonLabel(el) === label) return { el, label };
    return null;
  }

  // What a filter's option names, as a test of an item (its words, and
  // whether it is ticked): "All" every item, "Completed" the ticked ones,
  // "Active" the others, another word the items that carry it; null when
  // the label says nothing an item can be told by.
  const ALL_OPTION = /^(all|everything|any|show all|all items)$/;
  const TICKED = new Set(['completed', 'complete', 'done', 'finished', 'checked', 'ticked', 'closed', 'resolved']);
  const UNTICKED = new Set(['active', 'open', 'pending', 'remaining', 'incomplete', 'uncompleted', 'unchecked', 'todo', 'undone', 'left']);
  function kindOf(label) {
    const low = clean(label, 60).toLowerCase();
    if (ALL_OPTION.test(low)) return () => true;
    const words = low.split(/[^\p{L}\p{N}]+/u).filter(Boolean);
    if (words.some((w) => TICKED.has(w))) return (s) => s.ticked;
    if (words.some((w) => UNTICKED.has(w))) return (s) => !s.ticked;
    const own = words.filter((w) => w.length >= 3);
    return own.length ? (s) => own.some((w) => s.words.has(w)) : null;
  }
  // An item as a filter tells it: ticked (its checkbox, or a class that
  // says so) and the words of its class and text.
  function itemState(item) {
    const p = itemParts(item);
    const cls = String(getAttr(item, 'class') || '').toLowerCase();
    const words = new Set((cls + ' ' + clean(textContent(item), 300).toLowerCase()).split(/[^\p{L}\p{N}]+/u).filter(Boolean));
    const ticked = !!(p.check && (p.check.checked || getAttr(p.check, 'aria-checked') === 'true')) || cls.split(/\s+/).some((w) => TICKED.has(w));
    return { ticked, words };
  }
  // The lists of items the page has now (the registry's), with their shown
  // items' states: what a switch is expected to filter.
  const listStates = (reg) => (reg ? reg.items : []).map((ri) => ({ r: ri, before: live(ri) ? itemsOf(ri).slice(0, 200).map(itemState) : [] }));

  // A closed disclosure by its label (found again when the page drew it
  // anew), or null.
  function disclosureOf(r, label) {
    const o = r.opts.find((x) => x.label === label);
    if (o && isConnected(o.el)) return o;
    for (const el of disclosures(docBody(document))) if (discLabel(el) === label) return { el, label };
    return null;
  }

  async function callDisclosure(r, req) {
    const o = disclosureOf(r, req.option);
    if (!o) return { missing: disclosures(docBody(document)).filter((el) => !isExpanded(el)).map(discLabel).slice(0, cfg.maxOptions) };
    if (isExpanded(o.el)) return { ok: true, submitted: false, already: true };
    const watch = watchStart();
    expect(watch, { kind: 'disclosure', r, option: req.option, page: bodyText() });
    const at = aim(o.el);
    if (!at) clickEl(o.el);
    return { ok: true, submitted: true, watch, verify: true, click: at };
  }

  async function callSwitch(r, req, reg) {
    if (r.disclosure) return callDisclosure(r, req);
    if (!live(r)) return { error: 'stale' };
    const o = optionOf(r, req.option);
    if (!o) return { error: 'gone' };
    if (isCurrent(o.el) || isCurrent(parentElement(o.el))) return { ok: true, submitted: false, already: true };
    const watch = watchStart();
    expect(watch, { kind: 'switch', r, option: req.option, page: bodyText(), url: docURL(document), lists: listStates(reg) });
    const at = aim(o.el);
    if (!at) clickEl(o.el);
    return { ok: true, submitted: true, watch, verify: true, click: at };
  }

  // A switch's option that names a kind of item (a filter) has not done
  // its work when a list that showed items of that kind shows none now, or
  // shows items that are not of it while it can tell (ticked or not):
  // { seen: false, what, before, matching }, else null.
  function filtered(e) {
    const kind = kindOf(e.option);
    if (!kind) return null;
    for (const l of e.lists || []) {
      const matching = l.before.filter(kind).length;
      const now = live(l.r) ? itemsOf(l.r).slice(0, 200).map(itemState) : [];
      if (l.before.length && !now.length && matching) return { seen: false, what: 'emptied', before: l.before.length, matching };
      const ticks = l.before.some((s) => s.ticked) !== l.before.every((s) => s.ticked) || now.some((s) => s.ticked);
      const other = now.filter((s) => !kind(s)).length;
      if (ticks && other && kind({ ticked: true, words: new Set() }) !== kind({ ticked: false, words: new Set() })) return { seen: false, what: 'unfiltered', before: now.length, matching: other };
    }
    return null;
  }

  // Whether what the call expected is on the page now: { seen, what }.
  function verify(watch) {
    const e = expects.get(watch);
    expects.delete(watch);
    if (!e) return { seen: false, what: 'unknown' };
    switch (e.kind) {
      case 'text': {
        const bad = newlyInvalid(e);
        if (bad.length) return { seen: false, what: 'invalid', messages: bad };
        const page = bodyText();
        if (e.text) return occurrences(page, e.text) > e.count ? { seen: true, what: 'shown' } : { seen: false, what: 'text-absent' };
        return page !== e.page || docURL(document) !== e.url ? { seen: true, what: 'changed' } : { seen: false, what: 'unchanged' };
      }
      case 'toggle': {
        const f = findItem(e.r, e.label);
        if (!f || !f[1].check) return { seen: false, what: 'item-gone' };
        const now = !!(f[1].check.checked || getAttr(f[1].check, 'aria-checked') === 'true');
        return now !== e.was ? { seen: true, what: now ? 'ticked' : 'unticked' } : { seen: false, what: now ? 'still-ticked' : 'still-unticked' };
      }
      case 'gone':
        return countLabel(e.r, e.label) < e.count ? { seen: true, what: 'gone' } : { seen: false, what: 'still-there' };
      case 'changed': {
        const f = findItem(e.r, e.label);
        return !f || countLabel(e.r, e.label) !== e.count || stateOf(f[0], f[1]) !== e.state ? { seen: true, what: f ? 'changed' : 'gone' } : { seen: false, what: 'unchanged' };
      }
      case 'renamed': {
        const labels = itemLabels(e.r);
        const has = labels.includes(e.text), left = labels.filter((t) => t === e.label).length;
        return has && (left < e.count || e.text === e.label) ? { seen: true, what: 'renamed' } : { seen: false, what: has ? 'both' : 'not-renamed' };
      }
      case 'disclosure': {
        const o = disclosureOf(e.r, e.option);
        if (o && isExpanded(o.el)) return { seen: true, what: 'expanded' };
        return bodyText() !== e.page ? { seen: true, what: 'changed' } : { seen: false, what: 'unchanged' };
      }
      case 'switch': {
        const wrong = filtered(e);
        if (wrong) return wrong;
        const o = optionOf(e.r, e.option);
        if (docURL(document) !== e.url || (o && (isCurrent(o.el) || isCurrent(parentElement(o.el))))) return { seen: true, what: 'current' };
        return bodyText() !== e.page ? { seen: true, what: 'changed' } : { seen: false, what: 'unchanged' };
      }
    }
    return { seen: false, what: 'unknown' };
  }

  async function imperativeTools() {
    const mct = navigator.modelContextTesting;
    if (!mct || typeof mct.listTools !== 'function') return [null, 'absent'];
    try {
      const list = await mct.listTools();
      const out = [];
      for (const t of list || []) {
        if (out.length >= cfg.maxImperative) break;
        let schema = t.inputSchema;
        if (typeof schema !== 'string') schema = JSON.stringify(schema == null ? {} : schema);
        let ann = null;
        try { ann = t.annotations ? JSON.parse(JSON.stringify(t.annotations)) : null; } catch { ann = null; }
        out.push({ name: clean(t.name, 200), description: clean(t.description, cfg.descMax), inputSchema: String(schema).slice(0, cfg.schemaMax), annotations: ann });
      }
      return [out, 'ok'];
    } catch (e) {
      return [null, clean('error: ' + (e && e.message), 200)];
    }
  }

  async function discover() {
    const page = { url: docURL(document), title: clean(docTitle(document), cfg.textMax), forms: [], lists: [], buttons: [], items: [], switches: [] };
    const reg = { forms: [], lists: [], buttons: [], items: [], switches: [] };
    const body = docBody(document);
    if (body) {
      const headings = Array.from(docQSA(document, HEADINGS));
      labelIndex = indexLabels();
      let fid = 0;
      for (const form of docQSA(document, 'form')) {
        if (fid >= cfg.maxForms) break;
        const declared = hasAttr(form, 'toolname');
        if (!declared && !visible(form)) continue;
        const [d, r] = describeForm(form, fid, headings);
        if (!declared && !d.fields.length && !(r.submit && visible(r.submit)) && !r.action) continue; // nothing to fill, nothing to press
        fid++;
        page.forms.push(d);
        reg.forms.push(r);
      }
      const outside = findOutside(body, headings, page, reg);
      const lists = findLists(body, headings).filter((l) => !outside.claims(l[1].el));
      page.lists = lists.map((l) => l[0]);
      reg.lists = lists.map((l) => l[1]);
      [page.buttons, reg.buttons] = findButtons(body, reg.lists.concat(outside.taken));
      labelIndex = null;
      forIndex = null;
    }
    [page.imperative, page.imperativeStatus] = await imperativeTools();
    return [page, reg];
  }

  // Discoveries run one at a time; the generation moves only when what is
  // found changes, and the registry of element references is kept for the
  // last few generations (a call names the generation it was built from).
  const registries = new Map();
  let gen = 0, lastSig = '';
  let chain = Promise.resolve();
  const serial = (fn) => { const p = chain.then(fn); chain = p.catch(() => {}); return p; };

  const discoverAndStore = () => serial(async () => {
    const [page, reg] = await discover();
    const sig = JSON.stringify(page);
    const changed = sig !== lastSig;
    if (changed) { lastSig = sig; gen++; }
    registries.set(gen, reg);
    for (const k of registries.keys()) if (k <= gen - 8) registries.delete(k);
    page.gen = gen;
    return [page, changed, '{"gen":' + gen + ',' + sig.slice(1)];
  });

  let stopped = false;
  const send = (msg) => {
    if (stopped) return;
    const b = globalThis[cfg.binding];
    if (typeof b === 'function') b(JSON.stringify(msg));
  };

  const report = (force) => discoverAndStore().then(([page, changed]) => {
    if (changed || force) send({ type: 'tools', page });
  }).catch((e) => send({ type: 'error', message: clean(e && e.stack, 500) }));

  // The engine renews a lease every few seconds. Once it lapses (the
  // engine let go of the tab without a word: the debugger was detached, as
  // when the user stops sharing the tab) the script stops watching the page
  // at its next change, until a renewal wakes it, and says so (the engine
  // logs it; tests know from it that the change goes unreported).
  let leaseEnd = performance.now() + cfg.leaseMs, dormant = false;
  const lapsed = () => {
    if (stopped) return true;
    if (performance.now() <= leaseEnd) return false;
    if (!dormant) { dormant = true; observer.disconnect(); clearTimeout(timer); timer = 0; firstAt = 0; send({ type: 'dormant' }); }
    return true;
  };
  const renew = () => {
    leaseEnd = performance.now() + cfg.leaseMs;
    if (dormant && !stopped) { dormant = false; observe(); schedule(); }
    return !stopped;
  };
  const leased = (fn) => (...a) => { renew(); return fn(...a); };

  let timer = 0, firstAt = 0;
  const schedule = () => {
    if (lapsed()) return;
    const now = performance.now();
    if (!firstAt) firstAt = now;
    clearTimeout(timer);
    const wait = Math.max(0, Math.min(cfg.debounceMs, firstAt + cfg.maxDebounceMs - now));
    timer = setTimeout(() => { firstAt = 0; timer = 0; report(false); }, wait);
  };

  const observer = new MutationObserver(schedule);
  const hasTools = (p) => p.forms.length || p.lists.length || p.buttons.length || p.items.length || p.switches.length || (p.imperative && p.imperative.length);

  const observe = () => observer.observe(document, {
    subtree: true, childList: true, characterData: true, attributes: true,
    attributeFilter: ['toolname', 'tooldescription', 'toolparamdescription', 'toolparamname', 'toolautosubmit', 'name', 'type', 'disabled',
      'hidden', 'required', 'aria-label', 'aria-labelledby', 'placeholder', 'style', 'class', 'open', 'href', 'role', 'min', 'max', 'pattern', 'multiple', 'readonly'],
  });

  function start() {
    observe();
    const mct = navigator.modelContextTesting;
    if (mct && typeof mct.registerToolsChangedCallback === 'function') {
      try { mct.registerToolsChangedCallback(schedule); } catch { /* not this version's API */ }
    }
    // Report at once when the parsed page has tools; an empty page waits
    // for its load event (at most a second), so a page built by script
    // does not announce "no tools" first.
    discoverAndStore().then(([page]) => {
      if (hasTools(page) || readyState(document) === 'complete') { send({ type: 'tools', page }); return; }
      let sent = false;
      const first = () => { if (!sent) { sent = true; report(true); } };
      listen(window, 'load', first, { once: true });
      setTimeout(first, 1000);
    }).catch((e) => send({ type: 'error', message: clean(e && e.stack, 500) }));
  }

  // What a call changed: the mutation records from just before the submit
  // or click until the page is quiet.
  const watches = new Map();
  let watchSeq = 0;
  const WATCH_ATTRS = ['hidden', 'open', 'class', 'style', 'aria-hidden', 'aria-expanded', 'aria-invalid', 'disabled'];
  function watchStart() {
    const id = ++watchSeq;
    const w = { nodes: new Set(), start: performance.now(), first: 0, last: 0 };
    w.mo = new MutationObserver((recs) => {
      const now = performance.now();
      if (!w.first) w.first = now;
      w.last = now;
      for (const r of recs) {
        if (r.type === 'childList') for (const n of r.addedNodes) w.nodes.add(nodeType(n) === 1 ? n : parentElement(n));
        else if (r.type === 'characterData') w.nodes.add(parentElement(r.target));
        else w.nodes.add(r.target);
      }
    });
    w.mo.observe(document, { subtree: true, childList: true, characterData: true, attributes: true, attributeFilter: WATCH_ATTRS });
    watches.set(id, w);
    // A watch nobody settles (the caller went away) stops by itself.
    setTimeout(() => { if (watches.delete(id)) w.mo.disconnect(); }, 120000);
    return id;
  }

  function changedText(nodes, limit) {
    const set = new Set();
    const body = docBody(document);
    for (const n of nodes) {
      if (!n || nodeType(n) !== 1 || !isConnected(n) || n === body || n === docElement(document)) continue;
      const ln = localName(n);
      if (ln === 'script' || ln === 'style' || ln === 'noscript' || ln === 'template') continue;
      set.add(n);
    }
    const top = [];
    for (const n of set) {
      let p = parentElement(n), inside = false;
      while (p) { if (set.has(p)) { inside = true; break; } p = parentElement(p); }
      if (!inside) top.push(n);
    }
    top.sort((a, b) => (comparePosition(a, b) & FOLLOWING ? -1 : 1));
    const parts = [];
    let len = 0;
    for (const n of top) {
      if (len > limit) break;
      const t = (n instanceof HTMLElement ? innerTextOf(n) : textContent(n)).replace(/\n\s*\n+/g, '\n').trim();
      if (t) { parts.push(t); len += t.length + 1; }
    }
    return parts.join('\n').slice(0, limit);
  }

  // keep: the watch goes on (the engine settles it again once the page's
  // requests are answered: a later settle waits afresh for changes).
  async function settle(id, firstMs, quietMs, maxMs, limit, keep) {
    const w = watches.get(id);
    if (!w) return { text: '', busy: false };
    if (w.settled) { w.start = performance.now(); w.first = 0; }
    let busy = false;
    await new Promise((resolve) => {
      const tick = () => {
        const now = performance.now();
        if (now - w.start >= maxMs) { busy = !!w.first && now - w.last < quietMs; return resolve(); }
        if (!w.first ? now - w.start >= firstMs : now - w.last >= quietMs) return resolve();
        setTimeout(tick, 20);
      };
      tick();
    });
    if (keep) w.settled = true;
    else { w.mo.disconnect(); watches.delete(id); }
    return { text: changedText(w.nodes, limit), busy };
  }

  // A new page as a call's answer tells it: its main heading and the text
  // of its main content without the navigation around it (menus, side
  // bars, the page's header and footer), lean.
  const AROUND = CHROME + ',header,footer,[role=complementary],[role=search]';
  const AROUND_CLASS = /(^|[\s_-])(sidebar|side-bar|sidenav|navbar|topbar|breadcrumbs?|skip-link)($|[\s_-])/i;
  function pageSummary(limit) {
    const body = docBody(document);
    if (!body) return { heading: '', text: '' };
    const root = qs(body, 'main,[role=main]') || body;
    const around = Array.from(qsa(root, AROUND + ',[class*=bar],[class*=nav],[class*=crumb],[id*=bar],[id*=nav]')).filter((el) => (matches(el, AROUND) && inChrome(el)) || AROUND_CLASS.test(hintOf(el)));
    let text = innerTextOf(root);
    for (const el of around) {
      if (around.some((o) => o !== el && contains(o, el))) continue;
      const t = innerTextOf(el).trim();
      if (t) text = text.replace(t, '');
    }
    const h = Array.from(qsa(root, 'h1')).concat(Array.from(qsa(root, HEADINGS))).find((x) => visible(x) && !around.some((o) => contains(o, x)));
    const heading = h ? clean(innerTextOf(h), cfg.textMax) : '';
    text = text.replace(/\n\s*\n+/g, '\n').trim();
    if (heading && text.startsWith(heading)) text = text.slice(heading.length).trim();
    return { heading, text: text.slice(0, limit) };
  }

  function pageText(limit) {
    const body = docBody(document);
    if (!body) return '';
    const main = qs(body, 'main,[role=main]') || body;
    return innerTextOf(main).replace(/\n\s*\n+/g, '\n').trim().slice(0, limit);
  }

  // Filling fields the way a person does: focus, the element's own value
  // setter (so frameworks that track the value property, such as React,
  // see a change), then input and change events; checkboxes and radios
  // are clicked.
  const fire = (el, type) => dispatch(el, new Event(type, { bubbles: true }));
  function setValue(f, el, v) {
    focusEl(el);
    f.setter.call(el, v);
    fire(el, 'input');
    fire(el, 'change');
  }
  const setChecked = (el, on) => { if (el.checked !== on) clickEl(el); };

  function snapshot(f) {
    switch (f.kind) {
      case 'text': case 'select': return f.el.value;
      case 'widget': return [f.el.value, f.w.value];
      case 'check': return f.el.checked;
      case 'radio': case 'checks': return f.els.map((e) => e.checked);
      case 'multi': return Array.from(f.el.options, (o) => o.selected);
      case 'file': return f.el.files.length;
    }
  }

  function restore(f, old) {
    switch (f.kind) {
      case 'text': if (f.el.value !== old) setValue(f, f.el, old); break;
      case 'widget': if (f.w.value !== old[1]) setValue(f, f.w, old[1]); if (f.el.value !== old[0]) setValue(f, f.el, old[0]); break;
      case 'select': if (f.el.value !== old) setValue({ setter: setters.select }, f.el, old); break;
      case 'check': setChecked(f.el, old); break;
      case 'radio': f.els.forEach((e, i) => { if (old[i] && !e.checked) clickEl(e); else if (!old[i] && e.checked) e.checked = false; }); break;
      case 'checks': f.els.forEach((e, i) => setChecked(e, old[i])); break;
      case 'multi': Array.from(f.el.options).forEach((o, i) => { o.selected = old[i]; }); fire(f.el, 'input'); fire(f.el, 'change'); break;
      // (The engine attached the files before the call: none stays.)
      case 'file': if (f.el.files.length) { f.el.value = ''; fire(f.el, 'input'); fire(f.el, 'change'); } break;
    }
  }

  // Checks a value against what only the page knows (its options, its
  // pattern) before anything is touched; answers an error text or ''.
  function precheck(f, v) {
    switch (f.kind) {
      case 'text': {
        const p = getAttr(f.el, 'pattern');
        if (p && v !== '') {
          let re = null;
          try { re = new RegExp('^(?:' + p + ')$', 'v'); } catch { re = null; } // the browser ignores a bad pattern too
          if (re && !re.test(v)) return 'does not match the pattern the page requires';
        }
        return '';
      }
      case 'select': return optionFor(f.el, v) ? '' : 'is not one of the options (give its value or its label)';
      case 'radio': return radioFor(f, v) ? '' : 'is not one of the options (give its value or its label)';
      case 'checks': case 'multi': {
        const have = f.kind === 'checks' ? f.els.map(cv) : Array.from(f.el.options, (o) => o.value);
        return v.every((x) => have.includes(x)) ? '' : 'holds a value that is not one of the options';
      }
    }
    return '';
  }

  function fill(f, v) {
    switch (f.kind) {
      case 'text': setValue(f, f.el, String(v)); break;
      case 'widget': fillWidget(f, String(v)); break;
      case 'select': setValue({ setter: setters.select }, f.el, optionFor(f.el, v).value); break;
      case 'check': focusEl(f.el); setChecked(f.el, !!v); break;
      case 'radio': { const r = radioFor(f, v); focusEl(r); if (!r.checked) clickEl(r); break; }
      case 'checks': for (const e of f.els) setChecked(e, v.includes(cv(e))); break;
      case 'multi': focusEl(f.el); for (const o of f.el.options) o.selected = v.includes(o.value); fire(f.el, 'input'); fire(f.el, 'change'); break;
    }
  }

  const tick = () => new Promise((r) => setTimeout(r, 0));

  const cv = (e) => clean(choiceValue(e), cfg.valueMax);
  // The option a value names: by value, else by label (exactly, then in
  // any case).
  function optionFor(sel, v) {
    const opts = Array.from(sel.options).filter((o) => !o.disabled);
    const label = (o) => clean(o.label || textContent(o), cfg.valueMax);
    const low = String(v).toLowerCase();
    return opts.find((o) => o.value === v) || opts.find((o) => label(o) === v) || opts.find((o) => label(o).toLowerCase() === low) || null;
  }

  // The radio button a value names: by value, else by label.
  function radioFor(f, v) {
    const low = String(v).toLowerCase();
    const label = (e) => clean(fieldLabel(e), cfg.valueMax);
    return f.els.find((e) => cv(e) === v) || f.els.find((e) => label(e) === v) || f.els.find((e) => label(e).toLowerCase() === low) || null;
  }

  // Text compared as a person reads it: case, spaces and leading zeros aside.
  const loose = (t) => String(t).toLowerCase().replace(/\s+/g, ' ').replace(/(^|\D)0+(\d)/g, '$1$2').trim();

  // A widget's value, set the way a person sets it: typed into its visible
  // input, which it reads when it loses the focus; a widget that did not
  // understand it (it shows something else) gets it in its native control
  // as given.
  function fillWidget(f, v) {
    setValue(f, f.w, v);
    blurEl(f.w);
  }
  // After the widgets have read what was typed (a tick later: some read it
  // on a timer), those that did not understand it get it in their native
  // control as given.
  function widgetFallback(fields) {
    for (const [f, v] of fields) {
      if (f.kind === 'widget' && !(loose(f.w.value) === loose(v) && f.el.value !== '')) setValue(f, f.el, String(v));
    }
  }

  // The fields that did not take the value given (a widget that refused
  // it): [{f, holds}].
  function untaken(fields) {
    const out = [];
    for (const [f, v, i] of fields) {
      let ok = true;
      if (f.kind === 'widget') ok = f.el.value === String(v) || (f.el.value !== '' && loose(f.w.value) === loose(v));
      else if (f.kind === 'select') ok = f.el.value === optionFor(f.el, v).value;
      else if (f.kind === 'text') ok = f.el.value !== '' || String(v) === ''; // a date or number input empties itself on what it cannot read
      else if (f.kind === 'file') ok = f.el.files.length === Number(v);
      if (!ok) out.push({ f: i, holds: clean(f.el.value, cfg.valueMax) });
    }
    return out;
  }

  // The button a submit clicks: the form's first submit button while it
  // can be clicked; else the form is submitted without one.
  const clicker = (r) => {
    const s = r.submit && isConnected(r.submit) ? r.submit : null;
    return s && !s.disabled && visible(s) ? s : null;
  };

  // A call never sends a credential to another origin than the page's
  // unless it says so (allowCrossOrigin). Answers the refusal, or null.
  // pending: the values the call is about to fill in, by field index.
  function credentialsAway(r, req, pending) {
    if (req.allowCrossOrigin) return null;
    const to = crossOrigin(r.form, clicker(r));
    if (!to) return null;
    const out = [];
    for (const el of formElements(r.form)) {
      const file = localName(el) === 'input' && el.type === 'file';
      if (!(isCredential(el) || file) || el.disabled) continue;
      const i = r.fields.findIndex((f) => f.el === el);
      const v = pending && pending.has(i) ? pending.get(i) : file ? el.files.length : el.value;
      if (v != null && v !== '' && v !== 0) out.push({ f: i, label: i < 0 ? clean(fieldLabel(el) || attr(el, 'name'), cfg.textMax) : '', file });
    }
    return out.length ? { crossOrigin: to, credentials: out } : null;
  }

  async function callForm(r, req) {
    const { form } = r;
    if (!isConnected(form)) return { error: 'gone' };
    const fields = req.values.map((x) => [r.fields[x.f], x.v, x.f]);
    for (const [f, , i] of fields) {
      if (!f || (f.el && !isConnected(f.el)) || (f.els && !f.els.every(isConnected))) return { error: 'gone' };
    }
    // (Files the engine attached for this call go again when it stops here.)
    const unattach = (out) => { for (const [f] of fields) if (f.kind === 'file') restore(f, 0); return out; };
    for (const [f, v, i] of fields) {
      const msg = precheck(f, v);
      if (msg) return unattach({ invalid: [{ f: i, message: msg }] });
    }
    // Before anything is typed, and again just before the submit (the
    // page may move its form's action as it is filled in).
    const away = req.submit && credentialsAway(r, req, new Map(fields.map(([, v, i]) => [i, v])));
    if (away) return unattach(away);
    const old = fields.map(([f]) => snapshot(f));
    for (const [f, v] of fields) fill(f, v);
    await tick(); // let a framework re-render (enable the submit button, say)
    if (fields.some(([f]) => f.kind === 'widget')) { widgetFallback(fields); await tick(); }
    const refused = untaken(fields);
    if (refused.length) {
      fields.forEach(([f], i) => restore(f, old[i]));
      return { untaken: refused };
    }
    if (!req.submit) return { ok: true, submitted: false };
    const late = credentialsAway(r, req, null);
    if (late) {
      fields.forEach(([f], i) => restore(f, old[i]));
      return late;
    }
    const submitter = r.submit && isConnected(r.submit) ? r.submit : null;
    const noValidate = formNoValidate(form) || (submitter && submitter.formNoValidate);
    if (!noValidate) {
      const rejected = [];
      for (const el of formElements(form)) {
        if (!el.willValidate || el.validity.valid) continue;
        const i = r.fields.findIndex((f) => f.el === el || (f.els && f.els.includes(el)));
        rejected.push({ f: i, label: i < 0 ? clean(fieldLabel(el) || attr(el, 'name'), cfg.textMax) : '', message: clean(el.validationMessage, cfg.textMax) });
      }
      if (rejected.length) {
        fields.forEach(([f], i) => restore(f, old[i]));
        return { rejected };
      }
    }
    return submitForm(r);
  }

  // The submit: the form's submit button, else the link or button that
  // reads as its action, else Enter in its lone text field (focused here,
  // pressed by the engine as a key), else the form's own submit. A click
  // takes the focus from the last field first, as a person's does: a date
  // picker that lets its field be typed into (flatpickr's allowInput)
  // reads the date when the field loses the focus.
  function submitForm(r) {
    const watch = watchStart();
    const leave = () => {
      const a = activeEl(document);
      if (a && r.fields.some((f) => f.el === a || f.w === a || (f.els && f.els.includes(a)))) blurEl(a);
    };
    const button = clicker(r);
    if (button) { leave(); clickEl(button); return { ok: true, submitted: true, watch }; }
    if (r.action && isConnected(r.action) && visible(r.action)) { leave(); clickEl(r.action); return { ok: true, submitted: true, watch }; }
    const lone = r.enter >= 0 ? r.fields[r.enter] : null;
    if (lone && isConnected(lone.el)) { focusEl(lone.el); return { ok: true, submitted: true, watch, enter: r.enter }; }
    requestSubmit(r.form);
    return { ok: true, submitted: true, watch };
  }

  async function call(req) {
    if (req.kind === 'imperative') {
      const mct = navigator.modelContextTesting;
      if (!mct || typeof mct.executeTool !== 'function') return { error: 'gone' };
      const watch = watchStart();
      const out = await mct.executeTool(req.name, req.args);
      return { ok: true, submitted: true, watch, output: out == null ? '' : String(out).slice(0, cfg.outputMax) };
    }
    const reg = registries.get(req.gen);
    if (!reg) return { error: 'stale' };
    if (req.kind === 'form') {
      const r = reg.forms[req.id];
      return r ? (r.group ? callGroup(r, req) : callForm(r, req)) : { error: 'stale' };
    }
    if (req.kind === 'item' || req.kind === 'switch') {
      const r = (req.kind === 'item' ? reg.items : reg.switches)[req.id];
      return r ? (req.kind === 'item' ? callItem(r, req) : callSwitch(r, req, reg)) : { error: 'stale' };
    }
    if (req.kind === 'list') {
      const r = reg.lists[req.id];
      if (!r || !isConnected(r.el)) return { error: 'gone' };
      const items = Array.from(elChildren(r.el)).filter((k) => localName(k) + '.' + className(k) === r.sig);
      if (req.index >= items.length) return { range: items.length };
      const item = items[req.index];
      const a = itemAction(item);
      if (!a) return { error: 'gone' };
      const watch = watchStart();
      clickEl(a);
      return { ok: true, submitted: true, watch };
    }
    if (req.kind === 'button') {
      const r = reg.buttons[req.id];
      if (!r || !isConnected(r.el)) return { error: 'gone' };
      const watch = watchStart();
      clickEl(r.el);
      return { ok: true, submitted: true, watch };
    }
    return { error: 'stale' };
  }

  // A form's file field, as an element (the engine attaches files to it).
  function fileInput(gen, id, f) {
    const reg = registries.get(gen);
    const r = reg && reg.forms[id];
    const field = r && r.fields[f];
    return field && field.kind === 'file' && isConnected(field.el) ? field.el : null;
  }

  Object.defineProperty(globalThis, cfg.key, {
    value: Object.freeze({
      // As JSON text: one string crosses CDP much faster than the object.
      discover: leased(() => discoverAndStore().then(([, , json]) => json)),
      call: leased(call), settle: leased(settle), pageText: leased(pageText), pageSummary: leased(pageSummary), verify: leased(verify), fileInput: leased(fileInput),
      renew,
      stop: () => { stopped = true; observer.disconnect(); clearTimeout(timer); },
    }),
  });

  // A page restored from the back/forward cache runs no new script.
  listen(window, 'pageshow', (ev) => { if (ev.persisted && !lapsed()) report(true); });
  if (readyState(document) === 'loading') listen(document, 'DOMContentLoaded', start, { once: true });
  else start();
});
