/**
 * A reply's position in the order of requests. Filled once through ReplyQueue.fill:
 * `line` undefined while the request is being handled, null when it finished without a reply
 * (the connection is closing); `after` runs right after the line is written.
 */
export interface ReplySlot {
  line: string | null | undefined;
  after: (() => void) | undefined;
}

/** Where the queue writes the replies whose turn has come. */
export interface ReplyOutput {
  send(line: string): void;
}

/**
 * Replies leave in request order even when requests finish out of order (submits run
 * concurrently; a proxy multiplexes many miners on one connection). A request takes its position
 * when it is dispatched; a finished reply waits until every earlier one has been written.
 */
export class ReplyQueue {
  readonly #slots: ReplySlot[] = [];
  readonly #output: ReplyOutput;

  constructor(output: ReplyOutput) {
    this.#output = output;
  }

  /** Positions taken and not yet written. */
  get length(): number {
    return this.#slots.length;
  }

  /** The next position: this request's reply leaves after every earlier request's. */
  reserve(): ReplySlot {
    const slot: ReplySlot = { line: undefined, after: undefined };
    this.#slots.push(slot);
    return slot;
  }

  /** A request finished: `line` is its reply (null: none), `after` runs once it is written. */
  fill(slot: ReplySlot, line: string | null, after: (() => void) | undefined): void {
    slot.line = line;
    slot.after = after;
  }

  /** Writes every finished reply at the head, in order, each followed by its `after`. */
  drain(): void {
    const slots = this.#slots;
    while (slots.length > 0 && slots[0]!.line !== undefined) {
      const slot = slots.shift()!;
      if (typeof slot.line === 'string') this.#output.send(slot.line);
      slot.after?.();
    }
  }
}
