import { newPhase, type PhaseResult, type PreparedSubmit, record } from '../stratum/pipeline-phases.js';
import type { StratumClient } from '../stratum/stratum-client.js';

/** One share miner of a node, with its pre-computed submits (consumed from the front). */
export interface ShareLane {
  readonly client: StratumClient;
  readonly submits: PreparedSubmit[];
}

/** What one node answered in the window. `phase.elapsedMs` runs from the start to its last reply. */
export interface NodeWindowResult {
  readonly phase: PhaseResult;
  /** Miners whose pre-computed submits ran out before the deadline (0 if the window was full). */
  readonly ranOut: number;
}

/**
 * Offers shares to every node at once for `durationMs`: each miner keeps `maxInFlight` submits
 * unanswered and sends the next as soon as a reply comes, until the deadline; the replies to what
 * was sent before the deadline are awaited and counted. Every node is loaded for the same wall
 * time, so the rates of the nodes add up to what the machine did.
 */
export async function sendSharesForWindow(
  nodes: readonly (readonly ShareLane[])[],
  maxInFlight: number,
  durationMs: number,
): Promise<NodeWindowResult[]> {
  const started = performance.now();
  const deadline = started + durationMs;
  return await Promise.all(
    nodes.map(async (lanes) => {
      const phase = newPhase();
      let lastReplyAt = started;
      let ranOut = 0;
      await Promise.all(
        lanes.map(async ({ client, submits }) => {
          let emptyEarly = false;
          const lane = async (): Promise<void> => {
            for (;;) {
              if (performance.now() >= deadline) return;
              const submit = submits.shift();
              if (!submit) {
                emptyEarly = true;
                return;
              }
              phase.sent++;
              const sentAt = performance.now();
              const reply = await client.sendRaw(submit.id, submit.line);
              lastReplyAt = performance.now();
              record(phase, reply, lastReplyAt - sentAt);
            }
          };
          await Promise.all(Array.from({ length: maxInFlight }, lane));
          if (emptyEarly) ranOut++;
        }),
      );
      phase.elapsedMs = lastReplyAt - started;
      return { phase, ranOut };
    }),
  );
}
