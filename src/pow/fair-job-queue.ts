/** What the queue needs of a job: whose it is. */
export interface OwnedJob {
  /** The peer the job is for (the stratum layer's IP key); '' when the caller names none. */
  readonly owner: string;
}

/**
 * The verifier's waiting jobs, one FIFO per owner, served round robin: one job of each owner in
 * turn, so a peer with thousands of submits queued delays another peer's share by at most one job
 * per queued peer, not by its whole backlog. Jobs put back after a worker died are served first.
 *
 * The round robin is the Map's insertion order: an owner served and still waiting is re-inserted,
 * which moves it to the end. Every operation is O(1) but evictFromLargest (O(owners), only at the
 * hard limit).
 */
export class FairJobQueue<Job extends OwnedJob> {
  readonly #byOwner = new Map<string, Job[]>();
  #retries: Job[] = [];
  #length = 0;

  get length(): number {
    return this.#length;
  }

  /** Owners with at least one job waiting. */
  get owners(): number {
    return this.#byOwner.size;
  }

  countOf(owner: string): number {
    return this.#byOwner.get(owner)?.length ?? 0;
  }

  push(job: Job): void {
    const jobs = this.#byOwner.get(job.owner);
    if (jobs === undefined) this.#byOwner.set(job.owner, [job]);
    else jobs.push(job);
    this.#length++;
  }

  /** Jobs to run before any other (a dead worker's), in the order given. */
  pushFront(jobs: readonly Job[]): void {
    this.#retries = [...jobs, ...this.#retries];
    this.#length += jobs.length;
  }

  /** Up to `count` jobs: retries first, then one per owner in turn. */
  take(count: number): Job[] {
    const taken = this.#retries.splice(0, count);
    while (taken.length < count && this.#byOwner.size > 0) {
      const [owner, jobs] = this.#byOwner.entries().next().value as [string, Job[]];
      taken.push(jobs.shift() as Job);
      this.#byOwner.delete(owner);
      if (jobs.length > 0) this.#byOwner.set(owner, jobs);
    }
    this.#length -= taken.length;
    return taken;
  }

  /**
   * Removes and returns the newest job of the owner with the most waiting, if that owner holds
   * more than `than` jobs: room for a peer below its share when the queue is at its hard limit.
   */
  evictFromLargest(than: number): Job | undefined {
    let largest: Job[] | undefined;
    let largestOwner = '';
    for (const [owner, jobs] of this.#byOwner) {
      if (largest === undefined || jobs.length > largest.length) {
        largest = jobs;
        largestOwner = owner;
      }
    }
    if (largest === undefined || largest.length <= than) return undefined;
    const job = largest.pop() as Job;
    if (largest.length === 0) this.#byOwner.delete(largestOwner);
    this.#length--;
    return job;
  }

  /** Removes and returns every waiting job of `owner` (retries included). */
  removeOwner(owner: string): Job[] {
    const jobs = this.#byOwner.get(owner) ?? [];
    this.#byOwner.delete(owner);
    const retried = this.#retries.filter((job) => job.owner === owner);
    if (retried.length > 0) this.#retries = this.#retries.filter((job) => job.owner !== owner);
    const removed = [...retried, ...jobs];
    this.#length -= removed.length;
    return removed;
  }

  /** Removes and returns every waiting job. */
  clear(): Job[] {
    const all = [...this.#retries, ...[...this.#byOwner.values()].flat()];
    this.#retries = [];
    this.#byOwner.clear();
    this.#length = 0;
    return all;
  }
}
