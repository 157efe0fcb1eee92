/**
 * Base of every error this project throws on purpose. `code` is a stable machine-readable
 * identifier (tests assert it, never the message); `data` carries what a log or a caller needs.
 */
export class FuegoPoolError<C extends string = string> extends Error {
  readonly code: C;
  readonly data: Readonly<Record<string, unknown>>;

  constructor(code: C, message: string, data: Record<string, unknown> = {}, options?: ErrorOptions) {
    super(message, options);
    this.name = new.target.name;
    this.code = code;
    this.data = Object.freeze({ ...data });
  }
}
