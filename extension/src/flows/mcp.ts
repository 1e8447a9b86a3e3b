// MCP registration: the coordinator and its child offered to VS Code's own
// agent (mcpProvider.ts adapts registration.ts to the API), once setup found
// a sidecar; offered again whenever setup changes something they depend on.
// The state they are made from belongs to the other flows; this one owns
// only the provider's registration.
import type { Ctx } from '../ctx';
import { errorMessage } from '../log';
import { registerProvider } from '../mcpProvider';
import { Child, serverDefinitions } from '../registration';

export function registerMcp(ctx: Ctx): void {
  const provider = registerProvider({
    log: ctx.log,
    ready: ctx.firstSetup,
    definitions: () => definitions(ctx),
    env: () => ctx.tier2.serverEnv(),
    changed: ctx.changed.event,
    extensionVersion: ctx.config.extensionVersion,
  });
  if (provider) ctx.pushExtCleanup(provider);
}

/** The MCP servers offered to VS Code: the coordinator and its child, once a sidecar is found. */
function definitions(ctx: Ctx) {
  const sidecar = ctx.sidecar.current;
  if (!sidecar || !ctx.config.settings.get<boolean>('registerMcpServers', true)) return [];
  let child: Child | undefined;
  try {
    child = ctx.config.child();
  } catch (err) {
    ctx.log.warn(`mcp: ${errorMessage(err)}; offering the coordinator alone`);
  }
  return serverDefinitions({
    sidecar: sidecar.path,
    workspace: ctx.config.folders[0],
    child,
    cdpPort: ctx.tier2.native.port,
    coordinatorArgs: ctx.config.coordinatorArgs,
  });
}
