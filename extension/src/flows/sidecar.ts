// Setup's first step: find the sidecar (sidecar.ts's chain), and register
// the everyday browser's native host again where an older sidecar had it.
import type { Ctx } from '../ctx';
import { errorMessage } from '../log';
import { HostRecord, registerNativeHost, remember, staleRegistrations } from '../nativeHost';
import type { Step } from '../setup';
import { resolveSidecar } from '../sidecar';

/** globalState: the browsers whose native host this extension registered, and with which sidecar. */
export const HOST_KEY = 'nativeHost.registered';

export function sidecarStep(ctx: Ctx): Step {
  return { name: 'sidecar', run: () => refreshSidecar(ctx) };
}

async function refreshSidecar(ctx: Ctx): Promise<void> {
  const before = ctx.sidecar?.path;
  ctx.sidecar = undefined;
  const found = await resolveSidecar({ setting: ctx.cfg.get<string>('sidecarPath', ''), extensionDir: ctx.context.extensionPath, log: ctx.log });
  if (found.path !== before) {
    // Another sidecar: what lived with the last one goes (the state watcher is made again).
    ctx.disposeSidecarCleanup();
    ctx.watchKey = undefined;
  }
  ctx.sidecar = found;
  if (!found.version.startsWith(`browser-coordinator ${ctx.extensionVersion} `)) {
    ctx.log.warn(`sidecar: ${found.path} is not version ${ctx.extensionVersion} like this extension (${found.version}); commands and fields may differ`);
  }
  void reRegisterNativeHosts(ctx, found.path);
}

/** The native hosts registered with an older sidecar (before an update) are registered again with this one. */
async function reRegisterNativeHosts(ctx: Ctx, sidecar: string): Promise<void> {
  const state = ctx.context.globalState;
  for (const browser of staleRegistrations(state.get<HostRecord>(HOST_KEY), sidecar)) {
    try {
      const r = await registerNativeHost({ sidecar, browser });
      ctx.log.info(`native host: registered again after the sidecar moved: ${r.message}`);
      await state.update(HOST_KEY, remember(state.get<HostRecord>(HOST_KEY), sidecar, browser));
    } catch (err) {
      ctx.log.warn(`native host: ${errorMessage(err)}`);
    }
  }
}
