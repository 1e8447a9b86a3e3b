// The everyday browser's native host, registered by the bundled sidecar
// (nativeHost.ts runs `install --host <browser>`). This flow owns the record
// of which browsers this extension registered, and with which sidecar, so
// that an update (a sidecar at a new path) registers them again.
import type { Ctx } from '../ctx';
import { errorMessage } from '../log';
import { HostBrowser, HostRecord, Registered, registerNativeHost, remember, staleRegistrations } from '../nativeHost';

/** globalState: the browsers whose native host this extension registered, and with which sidecar. */
const HOST_KEY = 'nativeHost.registered';

/** Registers `sidecar` as `browser`'s native host and remembers it; throws what the sidecar said. */
export async function registerHost(ctx: Ctx, sidecar: string, browser: HostBrowser): Promise<Registered> {
  const r = await registerNativeHost({ sidecar, browser });
  const state = ctx.context.globalState;
  await state.update(HOST_KEY, remember(state.get<HostRecord>(HOST_KEY), sidecar, browser));
  return r;
}

/** The native hosts registered with an older sidecar (before an update) are registered again with this one. */
export async function reRegisterNativeHosts(ctx: Ctx, sidecar: string): Promise<void> {
  for (const browser of staleRegistrations(ctx.context.globalState.get<HostRecord>(HOST_KEY), sidecar)) {
    try {
      const r = await registerHost(ctx, sidecar, browser);
      ctx.log.info(`native host: registered again after the sidecar moved: ${r.message}`);
    } catch (err) {
      ctx.log.warn(`native host: ${errorMessage(err)}`);
    }
  }
}
