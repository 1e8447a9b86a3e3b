// Setup's first step: find the sidecar (sidecar.ts's chain), and register
// the everyday browser's native host again where an older sidecar had it.
// This flow owns the sidecar found; a different one ends the sidecar
// lifetime (the state watcher is made again).
import type { Ctx } from '../ctx';
import type { Step } from '../setup';
import { resolveSidecar, Sidecar } from '../sidecar';
import { reRegisterNativeHosts } from './nativeHost';

export class SidecarFlow {
  readonly step: Step = { name: 'sidecar', run: () => this.find() };
  private found?: Sidecar;

  constructor(private readonly ctx: Ctx) {}

  /** The working sidecar binary, once setup found one. */
  get current(): Sidecar | undefined {
    return this.found;
  }

  private async find(): Promise<void> {
    const { ctx } = this;
    const before = this.found?.path;
    this.found = undefined;
    const found = await resolveSidecar({ setting: ctx.config.settings.get<string>('sidecarPath', ''), extensionDir: ctx.context.extensionPath, log: ctx.log });
    // Another sidecar: what lived with the last one goes (the state watcher is made again).
    if (found.path !== before) ctx.disposeSidecarCleanup();
    this.found = found;
    if (!found.version.startsWith(`browser-coordinator ${ctx.config.extensionVersion} `)) {
      ctx.log.warn(`sidecar: ${found.path} is not version ${ctx.config.extensionVersion} like this extension (${found.version}); commands and fields may differ`);
    }
    void reRegisterNativeHosts(ctx, found.path);
  }
}
