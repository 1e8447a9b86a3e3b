// The corpus: every task of every app, and the server routes the apps need.
//
// A task is { id, app, url, goal, intent, effect, failureClass, check,
// session?, setup?, skip? }:
//   goal          the task in a sentence, as a user would ask it
//   intent        what the user wants, structured (scripts/lib/corpus/agent.mjs reads it):
//                 { action, object?, item?, text?, fields?, choose?, dialog? }
//   effect        what a person would see when it is done: navigated, region
//                 (part of the page changed), validation, dialog, none
//   failureClass  the class of issue 17's failures the task probes
//   check         async ({ page, received, acted }) → { ok, detail }: read in the
//                 page (page.eval) or from what the server received, never
//                 from a tool's answer
//   session       tasks of one session run in order on one tab (TodoMVC's five)
//   setup         async (page) → the task's starting state, by the corpus's own hands
//   ready         a page expression true once the app has rendered (apps that render after load)
//   skip          why the task cannot run here (its app is not a static app)
import { todoApps, todoTasks } from './apps/todomvc.mjs';
import { govukTasks, govukRoutes } from './apps/govuk.mjs';
import { sbAdminTasks } from './apps/sbadmin.mjs';
import { swaggerTasks, swaggerRoutes } from './apps/swagger.mjs';
import { widgetTasks, widgetRoutes } from './apps/widgets.mjs';
import { dialogTasks, dialogRoutes } from './apps/dialogs.mjs';

/** All tasks, in the order they run (the dialog pages last: a dialog may leave a tab stuck). */
export function corpusTasks() {
  return [
    ...todoApps().flatMap(todoTasks),
    ...govukTasks(),
    ...sbAdminTasks(),
    ...swaggerTasks(),
    ...widgetTasks(),
    ...dialogTasks(),
  ];
}

/** The routes of the corpus server. */
export function corpusRoutes() {
  const blank = () => ({ body: '<!doctype html><title>corpus</title>' }); // where each session starts
  return { 'GET /corpus/blank': blank, ...govukRoutes(), ...swaggerRoutes(), ...widgetRoutes(), ...dialogRoutes() };
}

/**
 * The corpus's fixed sample (npm test and npm run bench unless
 * BENCH_CORPUS=full): every app family and every failure class of issue 17,
 * chosen once and never at random — five TodoMVC apps of different kinds
 * (React, Vue, Backbone, AngularJS's form, and Flight, whose filter showed
 * no item), one GOV.UK fixture of each input kind plus the very long option
 * texts and the enhanced file upload, and every task of the other apps.
 */
export const sampleApps = ['todomvc/react', 'todomvc/vue', 'todomvc/backbone', 'todomvc/angularjs', 'todomvc/flight'];
export const sampleFixtures = ['input/default', 'textarea/default', 'character-count/default', 'password-input/default', 'radios/default',
  'radios/with-very-long-option-text', 'checkboxes/default', 'select/default', 'date-input/default', 'file-upload/default', 'file-upload/enhanced'];

/** The sample's tasks of tasks, in their order. */
export function sampleOf(tasks) {
  return tasks.filter((t) => (t.app.startsWith('todomvc/') ? sampleApps.includes(t.app)
    : t.id.startsWith('govuk/') ? sampleFixtures.includes(t.id.slice('govuk/'.length)) : true));
}

/** The app family of a task: todomvc, govuk-frontend, sb-admin-2, swagger-ui, widgets or written here. */
export function familyOf(task) {
  const app = task.app.split('/')[0];
  if (app === 'accessible-autocomplete' || app === 'flatpickr') return 'widgets';
  if (app === 'dialogs' || app === 'coffee') return 'written here';
  return app;
}
