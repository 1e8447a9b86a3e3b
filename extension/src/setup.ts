// Setup as independent steps: finding the sidecar, reading argv.json,
// publishing VS Code's CDP port, watching the state folder, checking Claude
// Code's entries. A step that fails is logged and reported (the status bar
// shows it, "Retry Setup" runs it again); the steps after it and beside it
// run all the same. One failure — say a port file another user owns in a
// shared /tmp — must not leave the rest of the extension unset.
import { Log, errorMessage } from './log';

export interface Step {
  /** For people: "sidecar", "argv.json", "VS Code's CDP port", … */
  name: string;
  run: () => unknown;
}

export interface StepFailure {
  step: string;
  message: string;
}

export interface SetupReport {
  ran: string[];
  failed: StepFailure[];
}

/**
 * Runs groups of steps: the groups side by side, the steps of a group one
 * after the other (a later step may use what an earlier one found, but runs
 * even when it failed). Never rejects.
 */
export async function runSteps(groups: Step[][], log: Log): Promise<SetupReport> {
  const report: SetupReport = { ran: [], failed: [] };
  await Promise.all(groups.map(async (steps) => {
    for (const step of steps) {
      const t0 = Date.now();
      try {
        await step.run();
        log.debug(`setup: ${step.name} done in ${Date.now() - t0} ms`);
      } catch (err) {
        const message = errorMessage(err);
        report.failed.push({ step: step.name, message });
        log.error(`setup: ${step.name} failed: ${message} (the other steps still run; "Browser Coordinator: Retry Setup" tries again)`);
      }
      report.ran.push(step.name);
    }
  }));
  return report;
}

/** The setup problems that stand, by step: a step's problem goes when it succeeds. */
export class Problems {
  private readonly byStep = new Map<string, string>();

  /** Records the outcome of the steps that ran. */
  update(report: SetupReport): void {
    for (const name of report.ran) this.byStep.delete(name);
    for (const f of report.failed) this.byStep.set(f.step, f.message);
  }

  set(step: string, message: string | undefined): void {
    if (message) this.byStep.set(step, message);
    else this.byStep.delete(step);
  }

  get(step: string): string | undefined {
    return this.byStep.get(step);
  }

  list(): StepFailure[] {
    return [...this.byStep].map(([step, message]) => ({ step, message }));
  }
}

/**
 * Whether to show the one setup notification: when there are problems and
 * the user has not muted every one of them ("Don't Show Again" mutes the
 * steps it was shown for).
 */
export function shouldNotify(problems: StepFailure[], muted: readonly string[]): boolean {
  return problems.some((p) => !muted.includes(p.step));
}

/** The notification's one line. */
export function notificationText(problems: StepFailure[]): string {
  const [first, ...rest] = problems;
  return `Browser Coordinator: ${first.step}: ${first.message}${rest.length ? ` (and ${rest.length} more problem${rest.length > 1 ? 's' : ''}: ${rest.map((p) => p.step).join(', ')})` : ''}`;
}
