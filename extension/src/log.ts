// The logging surface the logic modules write to. VS Code's LogOutputChannel
// satisfies it; tests pass a recorder. Kept free of `vscode` on purpose.

export interface Log {
  info(message: string): void;
  warn(message: string): void;
  error(message: string): void;
  debug(message: string): void;
}

/** A Log that keeps every line, for tests and for messages shown later. */
export class MemoryLog implements Log {
  readonly lines: string[] = [];
  info(m: string): void { this.lines.push(`info ${m}`); }
  warn(m: string): void { this.lines.push(`warn ${m}`); }
  error(m: string): void { this.lines.push(`error ${m}`); }
  debug(m: string): void { this.lines.push(`debug ${m}`); }
}

/** The message of an unknown thrown value. */
export function errorMessage(err: unknown): string {
  return err instanceof Error ? err.message : String(err);
}
