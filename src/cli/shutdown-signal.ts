/**
 * Resolves with the first SIGINT or SIGTERM; the caller then stops what it started, in order.
 * Once `ignoreAfter` aborts (the command ended some other way) the handlers are removed and the
 * promise never settles: a process that runs commands in-process (tests) keeps its own handling.
 */
export function waitForShutdownSignal(ignoreAfter?: AbortSignal): Promise<NodeJS.Signals> {
  return new Promise((resolve) => {
    const remove = () => {
      process.off('SIGINT', onSignal);
      process.off('SIGTERM', onSignal);
    };
    const onSignal = (signal: NodeJS.Signals) => {
      remove();
      ignoreAfter?.removeEventListener('abort', remove);
      resolve(signal);
    };
    process.on('SIGINT', onSignal);
    process.on('SIGTERM', onSignal);
    ignoreAfter?.addEventListener('abort', remove, { once: true });
  });
}
