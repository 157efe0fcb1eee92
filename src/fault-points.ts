/**
 * The places in a multi-step write where a test stops, stalls or fails the process to prove that
 * recovery holds at each one (a crash between "sending" and the wallet's reply, say). A module
 * names its points as a string union and takes an optional FaultPoints; production passes none,
 * so every point is a no-op.
 */
export interface FaultPoints<Point extends string> {
  /** Called as the module passes `point` for `subject` (a batch id, for example); may throw or wait. */
  reached(point: Point, subject: string): void | Promise<void>;
}

/** No faults: what production runs with. */
export const NO_FAULTS: FaultPoints<string> = Object.freeze({ reached: () => undefined });
