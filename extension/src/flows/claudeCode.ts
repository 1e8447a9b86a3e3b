// Claude Code's entries, per open folder: checked at every setup (the
// folder's own local entries kept current), offered once, added, repaired
// and removed. The sidecar reads and writes the files (claudeCode.ts); this
// flow owns what the last check found per folder and the user's choice per
// folder (and which offers were made), and talks to the user.
import * as vscode from 'vscode';
import * as path from 'node:path';
import {
  applyWanted, Asker, Choice, inspect, Inspection, looksLikeClaudeProject, Place, plan, Plan, removeServers, Wanted,
} from '../claudeCode';
import type { Ctx } from '../ctx';
import { errorMessage } from '../log';
import type { Child } from '../registration';
import type { Step } from '../setup';

export interface ClaudeFolder {
  folder: string;
  plan: Plan;
  local: Inspection;
  project: Inspection;
}

export class ClaudeCode {
  readonly step: Step = { name: 'Claude Code entries', run: () => this.check() };
  private found: ClaudeFolder[] = [];

  constructor(private readonly ctx: Ctx) {}

  /** Each open folder's entries, as the last check found them. */
  get folders(): readonly ClaudeFolder[] {
    return this.found;
  }

  /** For the status bar: whether an open folder has entries, and why one needs a repair. */
  summary(): { hasEntries: boolean; stale?: string } {
    const stale = this.found.find((c) => c.plan.kind === 'offerRepair');
    return {
      hasEntries: this.found.some((c) => c.local.ours.length > 0 || c.project.ours.length > 0),
      stale: stale && stale.plan.kind === 'offerRepair' ? stale.plan.why : undefined,
    };
  }

  /** Inspects each folder's entries in both places, keeps the folder's own choice current, and notes what to offer. */
  private async check(): Promise<void> {
    const { ctx } = this;
    if (!ctx.sidecar.current) {
      // The sidecar step says why there is none; without it the files cannot be read.
      this.found = [];
      ctx.log.info('Claude Code: no sidecar, so its entries are not checked');
      return;
    }
    const found: ClaudeFolder[] = [];
    const errors: string[] = [];
    for (const folder of ctx.config.folders) {
      try {
        found.push(await checkFolder(ctx, folder));
      } catch (err) {
        errors.push(`${folder}: ${errorMessage(err)}`);
      }
    }
    this.found = found;
    for (const f of found) for (const e of [f.local.error, f.project.error]) if (e) errors.push(e);
    if (errors.length) throw new Error(errors.join('; '));
  }

  /** The last inspection of a folder's place, for its label. */
  inspection(folder: string, place: Place): Inspection | undefined {
    const c = this.found.find((x) => x.folder === folder);
    return c && (place === 'local' ? c.local : c.project);
  }
}

function choiceKey(folder: string): string {
  return `claudeCode.choice:${folder}`;
}

function choiceOf(ctx: Ctx, folder: string): Choice | undefined {
  return ctx.context.globalState.get<Choice>(choiceKey(folder));
}

async function setChoice(ctx: Ctx, folder: string, choice: Choice | undefined): Promise<void> {
  await ctx.context.globalState.update(choiceKey(folder), choice);
}

/** The sidecar to ask; without one nothing about Claude Code's files can be known. */
function asker(ctx: Ctx): Asker {
  if (!ctx.sidecar.current) throw new Error('no working sidecar binary, so Claude Code\'s entries cannot be read or written (see the log)');
  return { bin: ctx.sidecar.current.path };
}

function wanted(ctx: Ctx): Wanted {
  let child: Child | undefined;
  try {
    child = ctx.config.child();
  } catch (err) {
    ctx.log.warn(`Claude Code: ${errorMessage(err)}; the coordinator alone`);
  }
  return { sidecar: ctx.sidecar.current?.path ?? '', child };
}

/** One folder: both places inspected, the plan made; the folder's own local entries updated when they are behind. */
async function checkFolder(ctx: Ctx, folder: string): Promise<ClaudeFolder> {
  const a = asker(ctx);
  const w = wanted(ctx);
  const [local, project] = await Promise.all([inspect(a, 'local', folder, w), inspect(a, 'project', folder, w)]);
  const p = plan({
    folder,
    choice: choiceOf(ctx, folder),
    offer: ctx.config.settings.get<boolean>('claudeCode.offer', true),
    claudeProject: looksLikeClaudeProject(folder),
    local,
    project,
  });
  if (p.kind === 'update') {
    const r = await applyWanted(a, 'local', folder, w);
    ctx.log.info(`Claude Code: ${r.changed ? 'updated' : 'already current:'} ${local.location.label} (${p.why})`);
    return { folder, plan: { kind: 'nothing', why: 'updated' }, local: await inspect(a, 'local', folder, w), project };
  }
  if (p.kind !== 'nothing') ctx.log.info(`Claude Code: ${folder}: ${p.kind}${'why' in p ? ` (${p.why})` : ''}`);
  return { folder, plan: p, local, project };
}

/** After the first setup: at most one question per folder (a repair, or the entries offered once). */
export async function offerClaudeCode(ctx: Ctx): Promise<void> {
  for (const c of ctx.claudeCode.folders) {
    if (ctx.disposed) return;
    if (c.plan.kind === 'offerRepair') await offerRepair(ctx, c.folder, c.plan);
    else if (c.plan.kind === 'offerAdd') await offerAdd(ctx, c.folder);
  }
}

async function offerRepair(ctx: Ctx, folder: string, p: Extract<Plan, { kind: 'offerRepair' }>): Promise<void> {
  // Asked once per reason: an entry that goes stale again later (the next
  // update) is offered a repair again, even in a folder whose entries were
  // offered before.
  const repairAsked = `claudeCode.repairAsked:${folder}`;
  if (ctx.context.globalState.get(repairAsked) === p.why) return;
  const fix = 'Repair';
  const remove = 'Remove Them';
  const pick = await vscode.window.showWarningMessage(`Browser Coordinator: ${p.why}.`, fix, remove);
  await ctx.context.globalState.update(repairAsked, p.why);
  if (pick === fix) await repair(ctx, folder, p.place);
  if (pick === remove) await removeIn(ctx, folder);
}

async function offerAdd(ctx: Ctx, folder: string): Promise<void> {
  const asked = `claudeCode.asked:${folder}`;
  if (ctx.context.globalState.get(asked)) return;
  const local = 'Only for Me';
  const team = 'For the Team (.mcp.json)';
  const no = 'Not for This Folder';
  const pick = await vscode.window.showInformationMessage(
    `Browser Coordinator: add the coordinator and its browser MCP to Claude Code in ${path.basename(folder)}? "Only for Me" runs this extension's sidecar (Claude Code's local scope, nothing in the repository); "For the Team" writes a portable npx entry into .mcp.json.`,
    local, team, no,
  );
  await ctx.context.globalState.update(asked, true);
  if (pick === local) await addIn(ctx, folder, 'local');
  if (pick === team) await addIn(ctx, folder, 'project');
  if (pick === no) await setChoice(ctx, folder, 'declined');
}

export async function addIn(ctx: Ctx, folder: string, place: Place): Promise<boolean> {
  try {
    const r = await applyWanted(asker(ctx), place, folder, wanted(ctx));
    await setChoice(ctx, folder, place);
    const label = ctx.claudeCode.inspection(folder, place)?.location.label ?? r.file;
    ctx.log.info(`Claude Code: ${r.changed ? 'wrote' : 'already up to date:'} ${r.wrote.join(', ') || 'its entries'} in ${r.file}${r.removed.length ? `; removed ${r.removed.join(', ')}` : ''}`);
    const open = 'Open File';
    void vscode.window.showInformationMessage(`Browser Coordinator: ${r.changed ? 'added' : 'already in'} ${label}.${place === 'project' ? ' Teammates need Node (npx) and the browser-coordinator npm package.' : ''}`, open).then((pick) => {
      if (pick === open) void vscode.window.showTextDocument(vscode.Uri.file(r.file));
    });
    await ctx.requestRefresh({});
    return true;
  } catch (err) {
    ctx.log.error(`Claude Code: ${errorMessage(err)}`);
    void vscode.window.showErrorMessage(`Browser Coordinator: cannot write Claude Code's entries for ${path.basename(folder)}: ${errorMessage(err)}`);
    return false;
  }
}

export async function removeIn(ctx: Ctx, folder: string): Promise<void> {
  const removed: string[] = [];
  for (const place of ['local', 'project'] as Place[]) {
    try {
      const r = await removeServers(asker(ctx), place, folder);
      if (r.removed.length) removed.push(`${r.removed.join(', ')} from ${ctx.claudeCode.inspection(folder, place)?.location.label ?? r.file}`);
    } catch (err) {
      ctx.log.error(`Claude Code: ${errorMessage(err)}`);
      void vscode.window.showErrorMessage(`Browser Coordinator: ${errorMessage(err)}`);
    }
  }
  await setChoice(ctx, folder, 'declined');
  ctx.log.info(`Claude Code: ${removed.length ? `removed ${removed.join('; ')}` : `no entries in ${folder}`}`);
  void vscode.window.showInformationMessage(`Browser Coordinator: ${removed.length ? `removed ${removed.join('; ')}` : 'no entries to remove'}.`);
  await ctx.requestRefresh({});
}

export async function repair(ctx: Ctx, folder: string, place: Place): Promise<void> {
  const label = ctx.claudeCode.inspection(folder, place)?.location.label ?? path.basename(folder);
  try {
    const r = await applyWanted(asker(ctx), place, folder, wanted(ctx));
    if (!choiceOf(ctx, folder)) await setChoice(ctx, folder, place);
    ctx.log.info(`Claude Code: repaired ${r.file}: ${r.wrote.join(', ')}${r.removed.length ? `; removed ${r.removed.join(', ')}` : ''}`);
    void vscode.window.showInformationMessage(`Browser Coordinator: repaired ${label}.`);
  } catch (err) {
    ctx.log.error(`Claude Code: ${errorMessage(err)}`);
    void vscode.window.showErrorMessage(`Browser Coordinator: cannot repair ${label}: ${errorMessage(err)}`);
  }
  await ctx.requestRefresh({});
}
