// Setup's Tier 2 steps: whether argv.json asks VS Code for its debugging
// port, and the live port published (terminals' env, the port file).
import { argvStatus, KEY } from '../argv';
import { discover, portFilePath, removePortFile, writePortFile } from '../cdpPort';
import { CDP_ENV, Ctx } from '../ctx';
import { userDataDir } from '../product';
import type { Step } from '../setup';
import { currentPlatform, stateDirFlag } from '../stateFile';

export function tier2Steps(ctx: Ctx): Step[] {
  return [
    { name: 'argv.json', run: () => readArgv(ctx) },
    { name: "VS Code's CDP port", run: () => refreshPort(ctx) },
  ];
}

/** argv.json: whether Tier 2 is set up. A broken argv.json fails this step only. */
function readArgv(ctx: Ctx): void {
  if (ctx.support.kind === 'unavailable') {
    ctx.native = { support: ctx.support.kind, enabled: false };
    ctx.log.info(`Tier 2: ${ctx.support.reason}`);
    return;
  }
  ctx.native = { ...ctx.native, enabled: false };
  const status = argvStatus(ctx.argvFile);
  ctx.native.enabled = status.kind === 'enabled';
  ctx.log.info(`Tier 2: ${ctx.argvFile} ${status.kind === 'enabled' ? `has "${KEY}": "${status.value}"${status.ours ? ' (set by this extension)' : ''}` : status.kind === 'ignored' ? `has "${KEY}": ${JSON.stringify(status.value)}, which VS Code ignores (not a string)` : status.kind === 'missing' ? 'does not exist' : `has no "${KEY}"`}`);
  if (ctx.support.kind === 'argvIgnored') ctx.log.info(`Tier 2: ${ctx.support.reason}. ${ctx.support.needs}`);
}

/** Discovers VS Code's CDP port and publishes it (terminals' env, then the port file). */
async function refreshPort(ctx: Ctx): Promise<void> {
  const env = ctx.context.environmentVariableCollection;
  env.persistent = false; // a port from an earlier session must never reach a new terminal
  env.description = "Browser Coordinator: VS Code's own CDP port (Tier 2)";
  ctx.native.port = undefined;
  ctx.native.problem = undefined;
  if (ctx.support.kind === 'unavailable') {
    env.delete(CDP_ENV);
    return;
  }
  const dir = userDataDir(ctx.product, ctx.env, ctx.context.globalStorageUri.fsPath);
  const d = await discover(dir);
  if (ctx.disposed) return;
  const file = portFilePath(currentPlatform(), stateDirFlag(ctx.coordinatorArgs));
  if (d.kind === 'live') {
    ctx.native.port = d.port;
    env.replace(CDP_ENV, String(d.port));
    ctx.log.info(`Tier 2: VS Code's port ${d.port} is live (${d.version ?? 'unknown browser'}); ${CDP_ENV} set for terminals and MCP servers`);
    writePortFile(d.port, file); // throws, failing this step only, when the folder is not this user's alone
    ctx.log.info(`Tier 2: wrote ${file}`);
    return;
  }
  env.delete(CDP_ENV);
  // Only when nothing listens: on a mismatch the port is live, maybe another product's published port.
  if (d.kind === 'stale' && removePortFile(d.port, file)) ctx.log.info(`Tier 2: removed ${file} (port ${d.port} is gone)`);
  if (ctx.native.enabled) {
    ctx.native.problem = ctx.support.kind === 'argvIgnored'
      ? `${ctx.support.reason}. ${ctx.support.needs}`
      : d.kind === 'missing' ? 'Tier 2 is set up in argv.json, but VS Code has not been fully restarted since: quit all its windows and start it again' : d.reason;
  }
  ctx.log.info(`Tier 2: no live port (${d.kind}: ${d.reason})`);
}
