// The corpus's two agents read what they are shown, not what a task says:
// the page-tools matcher (scripts/lib/corpus/agent.mjs) and the Playwright
// MCP strategy (scripts/lib/corpus/playwright.mjs), on tool lists and
// snapshots shaped like the real ones, and the GOV.UK fixtures' questions.
// Plain functions: no browser.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { plan, fit, readParam, planDialog, planReveal } from '../lib/corpus/agent.mjs';
import { parseSnapshot, fieldsFor } from '../lib/corpus/playwright.mjs';
import { controlsOf, answersOf } from '../lib/corpus/apps/govuk.mjs';

const tool = (name, description, properties = {}, required = []) => ({ name, description, inputSchema: { type: 'object', properties, required, additionalProperties: false } });

const signIn = tool('welcome_back', 'Fills in and submits this form of the page. Page text: "Welcome Back!"', {
  enter_email_address: { type: 'string', format: 'email' },
  password: { type: 'string', writeOnly: true, description: 'Write-only: never shown back.' },
  remember_me: { type: 'boolean' },
});
const search = tool('search', 'Page text: "Search for…"', { search: { type: 'string' } });

test('fields go to the parameters their labels name, whatever wraps the description', () => {
  const p = plan([search, signIn], { action: 'sign_in', fields: { 'Email Address': 'ada@example.com', Password: 'pw' } });
  assert.equal(p.tool.name, 'welcome_back');
  assert.deepEqual(p.args, { enter_email_address: 'ada@example.com', password: 'pw' });
  const wrapped = { ...signIn, description: `Page text: "${signIn.description}"`, name: 'sign_in' };
  assert.equal(plan([wrapped], { action: 'sign_in', fields: { 'Email Address': 'a@b.c' } }).tool.name, 'sign_in');
});

test('a choice takes the option whose label is wanted (labels from the description)', () => {
  const radios = tool('have_you_changed_your_name', 'Page text: "Have you changed your name?"', {
    example_default: { type: 'string', enum: ['yes', 'no'], description: 'Options: Page text: "yes = Yes, I have; no = No, never".' },
  }, ['example_default']);
  assert.deepEqual(readParam('x', radios.inputSchema.properties.example_default).options.map((o) => o.label), ['Yes, I have', 'No, never']);
  const p = plan([radios], { action: 'submit', fields: { 'Have you changed your name?': 'No, never' } });
  assert.deepEqual(p.args, { example_default: 'no' }, 'matched by its option although the parameter\'s name says nothing');
});

test('no tool when a field has no parameter or a required parameter has no value', () => {
  assert.equal(plan([search], { action: 'submit', fields: { 'Date of birth': '2024-03-02' } }), undefined);
  const needs = tool('book', 'Page text: "Book"', { when: { type: 'string' } }, ['when']);
  assert.equal(fit(needs, { action: 'order' }), undefined, 'a required parameter left empty');
});

test('items: by position from the schema\'s base, by option, never into a parameter for a new value', () => {
  const list = tool('open_email', 'Opens one of the 5 items of a list on the page.', { index: { type: 'integer', minimum: 0, maximum: 4, description: 'Position in the list, from 0 at the top.' } }, ['index']);
  assert.deepEqual(plan([list], { action: 'open', object: 'email', item: { nth: 3 } }).args, { index: 2 });
  assert.equal(plan([list], { action: 'open', object: 'email', item: 'Meeting notes' }), undefined, 'a label cannot become a position');
  const form = tool('todos', 'Page text: "todos"', { new_todo: { type: 'string' } });
  assert.equal(plan([form], { action: 'toggle', object: 'todo', item: 'Walk the dog' }), undefined);
  const textForm = tool('todos', 'Page text: "todos"', { text: { type: 'string' } });
  assert.equal(plan([textForm], { action: 'toggle', object: 'todo', item: 'Walk the dog' }), undefined, '"text" is a new value, not the item');
  assert.deepEqual(plan([form], { action: 'add', object: 'todo', text: 'Buy milk' }).args, { new_todo: 'Buy milk' });
  const toggle = tool('toggle_todo', 'Toggles an item.', { item: { type: 'string', enum: ['Buy milk', 'Walk the dog'] } }, ['item']);
  assert.deepEqual(plan([form, toggle], { action: 'toggle', object: 'todo', item: 'Walk the dog' }).args, { item: 'Walk the dog' });
});

test('a dialog is answered with a tool about dialogs, as the intent says', () => {
  const d = tool('coordinator_handle_dialog', 'Answer the open dialog.', { accept: { type: 'boolean' }, promptText: { type: 'string' } });
  assert.deepEqual(planDialog([signIn, d], { accept: true, text: 'Groceries' }).args, { accept: true, promptText: 'Groceries' });
  assert.equal(planDialog([signIn], { accept: true }), undefined);
});

const snapshot = `### Snapshot
\`\`\`yaml
- main [ref=e1]:
  - group "What is your nationality?" [ref=e2]:
    - checkbox "British" [ref=e3] [cursor=pointer]
    - checkbox "Irish" [checked] [ref=e4]
  - 'button "GET /pet/{petId} Find pet by ID" [ref=e5]':
    - generic [ref=e6]: Find pet by ID
  - textbox "Email" [disabled] [ref=e7]
  - button "Continue" [ref=e8] [cursor=pointer]
\`\`\``;

test('a section is revealed by the option the object names; cut labels and files are read as a model would', () => {
  const expand = tool('expand_section', 'Expands one of 3 collapsed sections of the page.', {
    section: { type: 'string', enum: ['GET /pet/{petId} Find pet by ID', 'DELETE /pet/{petId} Deletes a pet', 'GET /store/inventory Returns pet inventories'] },
  }, ['section']);
  const intent = { action: 'execute', object: 'Deletes a pet', fields: { petId: '3' } };
  assert.equal(plan([expand], intent), undefined, 'no tool does the task yet');
  assert.deepEqual(planReveal([expand], intent, new Set()).args, { section: 'DELETE /pet/{petId} Deletes a pet' });
  assert.equal(planReveal([expand], { ...intent, object: 'Adopt a cat' }, new Set()), undefined, 'no option named by the object: nothing revealed');

  const long = tool('question', 'Page text: "Question"', {
    choice: { type: 'string', enum: ['a', 'b'], description: 'Options (value = label): Page text: "a = Nullam id dolor id nibh ultricies vehicula…; b = Aenean eu leo quam pellentesque ornare…".' },
  });
  assert.deepEqual(plan([long], { action: 'submit', fields: { Question: 'Aenean eu leo quam pellentesque ornare sem lacinia quam venenatis vestibulum.' } }).args, { choice: 'b' });

  const upload = tool('upload', 'Page text: "Upload"', {
    your_photo: { type: 'string', description: 'A local file to attach: its path, absolute or relative to the workspace folder.' },
    name: { type: 'string' },
  });
  assert.deepEqual(plan([upload], { action: 'upload', fields: { 'Your photo': { file: 'photo.txt' } } }).args, { your_photo: 'photo.txt' });
  assert.equal(plan([upload], { action: 'upload', fields: { Name: { file: 'photo.txt' } } }), undefined, 'a file never goes into a text parameter');
});

test('a Playwright MCP snapshot: quoted lines, states, nesting; choices found in their group, disabled fields left', () => {
  const root = parseSnapshot(snapshot);
  const [main] = root.children;
  assert.equal(main.children.length, 4);
  assert.deepEqual(main.children[1], { ...main.children[1], role: 'button', name: 'GET /pet/{petId} Find pet by ID', ref: 'e5' });
  assert.deepEqual(main.children[0].children[1].attrs, ['checked']);
  const f = fieldsFor(root, { fields: { 'What is your nationality?': ['British', 'Irish'], Email: 'a@b.c' } });
  assert.deepEqual(f.entries.map((e) => [e.target, e.type, e.value]), [['e3', 'checkbox', 'true'], ['e4', 'checkbox', 'true']]);
  assert.deepEqual(f.missing, ['Email'], 'a disabled field is not a field to fill');
});

test('GOV.UK fixtures: each question answered from its own labels, a revealed question left alone', () => {
  const html = `<div class="govuk-form-group"><fieldset class="govuk-fieldset"><legend class="govuk-fieldset__legend">How do you want to be contacted?</legend>
  <div class="govuk-radios">
    <div class="govuk-radios__item"><input class="govuk-radios__input" id="c" name="contact" type="radio" value="email"><label class="govuk-label" for="c">Email</label></div>
    <div class="govuk-radios__conditional" id="c-reveal"><div class="govuk-form-group"><label class="govuk-label" for="ce">Email address</label><input class="govuk-input" id="ce" name="contact-email" type="email"></div></div>
    <div class="govuk-radios__item"><input class="govuk-radios__input" id="c2" name="contact" type="radio" value="phone" disabled><label class="govuk-label" for="c2">Phone</label></div>
    <div class="govuk-radios__item"><input class="govuk-radios__input" id="c3" name="contact" type="radio" value="text"><label class="govuk-label" for="c3">Text message</label></div>
  </div></fieldset></div>`;
  const a = answersOf(controlsOf(html));
  assert.deepEqual(a.fields, { 'How do you want to be contacted?': 'Text message' });
  assert.deepEqual(a.expect, [['contact', 'text']]);
});
