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
