/** Resolves with the first fatal error a part reports (a stratum child that cannot restart, ...). */
export interface FatalSignal {
  readonly failed: Promise<Error>;
  readonly report: (error: Error) => void;
}

export function fatalSignal(): FatalSignal {
  let report: (error: Error) => void = () => undefined;
  const failed = new Promise<Error>((resolve) => {
    report = resolve;
  });
  return { failed, report: (error) => report(error) };
}
