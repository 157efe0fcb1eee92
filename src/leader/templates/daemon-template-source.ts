import { FuegoPoolError } from '../../errors.js';
import { type BlockTemplate, parseBlockTemplate } from '../../fuego/block-template.js';
import { bytesToHex, hexToBytes } from '../../fuego/hex.js';
import type { ParentStyle } from '../../fuego/job-work.js';
import type { FastHash } from '../../fuego/keccak.js';
import type { Logger } from '../../log/logger.js';
import type { ActiveTemplate, TemplateChange, TemplateSource } from '../../pool/template-source.js';
import type { BlockHeader, BlockTemplateResponse, DaemonInfo } from '../../rpc/daemon-schemas.js';
import { RpcError } from '../../rpc/rpc-error.js';

/** The daemon calls the template source needs (DaemonClient has them all). */
export interface TemplateDaemon {
  getInfo(): Promise<DaemonInfo>;
  getCurrencyId(): Promise<string>;
  getLastBlockHeader(): Promise<BlockHeader>;
  /** `/getheight`: the number of blocks in the chain. */
  getHeight(): Promise<number>;
  getBlockTemplate(params: { reserveSize: number; walletAddress: string }): Promise<BlockTemplateResponse>;
}

export interface DaemonTemplateSourceOptions {
  /** How often the tip is checked (getlastblockheader); the daemon has no push notification. */
  readonly pollIntervalMs: number;
  /**
   * How often the chain height is asked (`/getheight`, the daemon's cheapest call) between those
   * polls; a changed height polls at once. 0 turns it off. A new block is seen within this
   * interval instead of within pollIntervalMs; a tip replaced at the same height still waits for
   * the next poll.
   */
  readonly tipCheckIntervalMs: number;
  /** How often a template is fetched at an unchanged height, to pick up new transactions. */
  readonly refreshIntervalMs: number;
  /** `reserve_size` asked of the daemon: the bytes the pool writes + 1 (the daemon's off-by-one). */
  readonly reserveSize: number;
  /** Standard address the block reward goes to (the daemon refuses integrated ones). */
  readonly walletAddress: string;
  /** Genesis block id the daemon must report from getcurrencyid; undefined skips the check. */
  readonly expectedCurrencyId: string | undefined;
  readonly parentStyle: ParentStyle;
  /** `cn_fast_hash` used to build jobs from these templates (default: the pure implementation). */
  readonly fastHash?: FastHash;
  /** Wait between attempts while the daemon is unreachable or busy. */
  readonly retryDelayMs: number;
}

export interface DaemonTemplateSourceModules {
  readonly daemon: TemplateDaemon;
  readonly logger: Logger;
  readonly clock?: () => number;
}

export type TemplateSourceErrorCode = 'WRONG_NETWORK' | 'TEMPLATE_SOURCE_STOPPED';

export class TemplateSourceError extends FuegoPoolError<TemplateSourceErrorCode> {}

export interface TemplateSourceStatus {
  readonly healthy: boolean;
  readonly consecutiveFailures: number;
  readonly lastError: string | undefined;
  readonly templateAgeMs: number | undefined;
  readonly height: number | undefined;
}

/**
 * Leader-side template source: polls fuegod for a new tip and fetches a template when it moves,
 * refreshes at the same height to pick up transactions, and through daemon outages keeps the last
 * template (miners keep mining; a stale template only costs them if the network moved on).
 */
export class DaemonTemplateSource implements TemplateSource {
  readonly #listeners = new Set<(template: ActiveTemplate, change: TemplateChange) => void>();
  readonly #confirmListeners = new Set<(template: ActiveTemplate) => void>();
  #active: ActiveTemplate | undefined;
  /** When the daemon last gave the served template (or a new one): what its age counts from. */
  #confirmedAtMs = 0;
  #nextId = 1;
  #tipHash: string | undefined;
  #lastFetchMs = 0;
  #failures = 0;
  #lastError: string | undefined;
  #timer: NodeJS.Timeout | undefined;
  #tipCheckTimer: NodeJS.Timeout | undefined;
  /** Ends the wait between attempts at once (stop: a process stopping does not sit out the backoff). */
  #endRetryWait: (() => void) | undefined;
  /** The last `/getheight` answer. */
  #chainHeight: number | undefined;
  #stopped = false;
  #polling: Promise<void> = Promise.resolve();
  readonly #options: DaemonTemplateSourceOptions;
  readonly #modules: DaemonTemplateSourceModules;

  constructor(options: DaemonTemplateSourceOptions, modules: DaemonTemplateSourceModules) {
    this.#options = options;
    this.#modules = modules;
  }

  current(): ActiveTemplate | undefined {
    return this.#active;
  }

  onTemplate(listener: (template: ActiveTemplate, change: TemplateChange) => void): () => void {
    this.#listeners.add(listener);
    return () => this.#listeners.delete(listener);
  }

  /**
   * Subscribes to the refreshes that found the served template unchanged (no new transaction):
   * it is still the daemon's, however long the block takes. Returns the unsubscribe function.
   */
  onConfirmed(listener: (template: ActiveTemplate) => void): () => void {
    this.#confirmListeners.add(listener);
    return () => this.#confirmListeners.delete(listener);
  }

  /** templateAgeMs: since the daemon last gave the served template (a refresh that changed nothing counts). */
  status(): TemplateSourceStatus {
    return {
      healthy: this.#failures === 0 && this.#active !== undefined,
      consecutiveFailures: this.#failures,
      lastError: this.#lastError,
      templateAgeMs: this.#active ? this.#now() - this.#confirmedAtMs : undefined,
      height: this.#active?.height,
    };
  }

  /**
   * Checks the network, waits while the daemon is unreachable or busy, and resolves with the first
   * template; then keeps polling until `stop()`. A daemon on the wrong network is fatal.
   */
  async start(): Promise<ActiveTemplate> {
    await this.#untilSucceeds('network check', () => this.#checkNetwork());
    const first = await this.#untilSucceeds('first template', async () => {
      await this.pollOnce();
      if (!this.#active) throw new Error('no template yet');
      return this.#active;
    });
    this.#schedule();
    this.#scheduleTipCheck();
    return first;
  }

  /**
   * Checks the tip now instead of at the next poll: called when this pool just found a block, so
   * miners move to the next height without waiting up to a poll interval (and finding stale blocks).
   */
  pollNow(): void {
    if (this.#stopped || this.#active === undefined) return;
    this.pollOnce().then(
      () => this.#recordSuccess(),
      (error: unknown) => this.#recordFailure(error),
    );
  }

  stop(): void {
    this.#stopped = true;
    if (this.#timer) clearTimeout(this.#timer);
    if (this.#tipCheckTimer) clearTimeout(this.#tipCheckTimer);
    this.#endRetryWait?.();
  }

  /**
   * One poll step: new tip → new template; same tip but refresh due → template if txs changed.
   * Polls never overlap (the timer and pollNow may both ask): each waits for the one before.
   */
  pollOnce(): Promise<void> {
    const next = this.#polling.then(() => this.#pollStep());
    this.#polling = next.catch(() => undefined);
    return next;
  }

  async #pollStep(): Promise<void> {
    const header = await this.#modules.daemon.getLastBlockHeader();
    if (header.hash !== this.#tipHash || !this.#active) {
      await this.#fetchTemplate('new-block', header.hash);
    } else if (this.#now() - this.#lastFetchMs >= this.#options.refreshIntervalMs) {
      await this.#fetchTemplate('refresh', header.hash);
    }
  }

  async #checkNetwork(): Promise<void> {
    const info = await this.#modules.daemon.getInfo();
    // fuegod answers BUSY until it is synchronized with its peers (and while its core starts).
    if (info.status === 'BUSY') throw new Error('daemon status is BUSY: still syncing (or starting)');
    if (info.status !== 'OK') throw new Error(`daemon status is ${info.status}`);
    const expected = this.#options.expectedCurrencyId;
    if (expected === undefined) return;
    const actual = await this.#modules.daemon.getCurrencyId();
    if (actual !== expected) {
      throw new TemplateSourceError(
        'WRONG_NETWORK',
        `the daemon is on another network: currency id ${actual}, expected ${expected} (check "network" and daemon.port)`,
        { actual, expected },
      );
    }
  }

  async #fetchTemplate(change: TemplateChange, tipHash: string): Promise<void> {
    const response = await this.#modules.daemon.getBlockTemplate({
      reserveSize: this.#options.reserveSize,
      walletAddress: this.#options.walletAddress,
    });
    this.#lastFetchMs = this.#now();
    const template = parseBlockTemplate({
      blob: hexToBytes(response.blocktemplate_blob),
      reservedOffset: response.reserved_offset,
      reserveSize: this.#options.reserveSize,
      height: response.height,
      difficulty: BigInt(response.difficulty),
      parentStyle: this.#options.parentStyle,
      ...(this.#options.fastHash ? { fastHash: this.#options.fastHash } : {}),
    });
    const prevHash = bytesToHex(template.prevId);
    const served = this.#active;
    // Unchanged: the same tip (a block may have landed since the header) and the same transactions.
    if (
      change === 'refresh' &&
      served !== undefined &&
      prevHash === served.prevHash &&
      sameTransactions(served.template, template)
    ) {
      this.#confirmedAtMs = this.#lastFetchMs;
      for (const listener of this.#confirmListeners) listener(served);
      return;
    }
    // The tip may have moved between the header and the template: the template is the authority.
    const effectiveChange = this.#active && prevHash !== this.#active.prevHash ? 'new-block' : change;
    this.#tipHash = effectiveChange === 'new-block' ? prevHash : tipHash;
    this.#active = {
      id: this.#nextId++,
      template,
      height: response.height,
      networkDifficulty: BigInt(response.difficulty),
      prevHash,
      receivedAtMs: this.#now(),
    };
    this.#confirmedAtMs = this.#active.receivedAtMs;
    this.#modules.logger.info(
      {
        height: response.height,
        difficulty: response.difficulty,
        change: effectiveChange,
        templateId: this.#active.id,
      },
      'new block template',
    );
    for (const listener of this.#listeners) listener(this.#active, effectiveChange);
  }

  #schedule(): void {
    if (this.#stopped) return;
    const delay = this.#failures === 0 ? this.#options.pollIntervalMs : this.#options.retryDelayMs;
    this.#timer = setTimeout(() => {
      this.pollOnce()
        .then(
          () => this.#recordSuccess(),
          (error: unknown) => this.#recordFailure(error),
        )
        .finally(() => this.#schedule());
    }, delay);
    this.#timer.unref?.();
  }

  #scheduleTipCheck(): void {
    if (this.#stopped || this.#options.tipCheckIntervalMs <= 0) return;
    this.#tipCheckTimer = setTimeout(() => {
      this.#checkHeight().finally(() => this.#scheduleTipCheck());
    }, this.#options.tipCheckIntervalMs);
    this.#tipCheckTimer.unref?.();
  }

  /**
   * Polls at once when the chain height changed since the last check. Never throws: while the
   * daemon fails, the regular poll (with its retry delay) probes and reports it, so this check
   * stands aside and its own errors are not counted.
   */
  async #checkHeight(): Promise<void> {
    if (this.#failures > 0) return;
    let height: number;
    try {
      height = await this.#modules.daemon.getHeight();
    } catch {
      return;
    }
    const previous = this.#chainHeight;
    this.#chainHeight = height;
    if (previous !== undefined && height !== previous) this.pollNow();
  }

  async #untilSucceeds<T>(what: string, attempt: () => Promise<T>): Promise<T> {
    for (;;) {
      if (this.#stopped) throw new TemplateSourceError('TEMPLATE_SOURCE_STOPPED', `stopped during ${what}`);
      try {
        const result = await attempt();
        this.#recordSuccess();
        return result;
      } catch (error) {
        if (error instanceof TemplateSourceError) throw error;
        this.#recordFailure(error);
        await this.#retryWait();
      }
    }
  }

  #retryWait(): Promise<void> {
    return new Promise((resolve) => {
      const timer = setTimeout(resolve, this.#options.retryDelayMs);
      this.#endRetryWait = () => {
        clearTimeout(timer);
        resolve();
      };
    });
  }

  #recordSuccess(): void {
    if (this.#failures > 0) {
      this.#modules.logger.info({ afterFailures: this.#failures }, 'daemon reachable again');
    }
    this.#failures = 0;
    this.#lastError = undefined;
  }

  #recordFailure(error: unknown): void {
    this.#failures += 1;
    this.#lastError = error instanceof Error ? error.message : String(error);
    // Log the first failure and then every 50th, so a long outage does not flood the log.
    if (this.#failures === 1 || this.#failures % 50 === 0) {
      const code = error instanceof RpcError ? error.code : undefined;
      this.#modules.logger.warn(
        { failures: this.#failures, code, error: this.#lastError, servingTemplate: this.#active?.id },
        'cannot get a block template from the daemon; still serving the last one',
      );
    }
  }

  #now(): number {
    return this.#modules.clock ? this.#modules.clock() : Date.now();
  }
}

function sameTransactions(a: BlockTemplate, b: BlockTemplate): boolean {
  const left = a.block.transactionHashes;
  const right = b.block.transactionHashes;
  if (left.length !== right.length) return false;
  return left.every((hash, i) => bytesToHex(hash) === bytesToHex(right[i] ?? new Uint8Array()));
}
