import { type BlockTemplate, parseBlockTemplate } from '../../src/fuego/block-template.js';
import { bytesToHex, hexToBytes } from '../../src/fuego/hex.js';
import { createLogger, type Logger } from '../../src/log/logger.js';
import type { BlockRefusalReason } from '../../src/model/block-refusal-reason.js';
import type {
  AcceptedShare,
  BlockCandidate,
  RefusalRecordOutcome,
  ShareLedger,
} from '../../src/model/share-ledger.js';
import type { Ban, BanChange, BanEntry, BanRegistry } from '../../src/pool/ban-registry.js';
import { LocalBans } from '../../src/pool/local-bans.js';
import { MinerSession } from '../../src/pool/miner-session.js';
import { PoolBackend, type PoolBackendOptions } from '../../src/pool/pool-backend.js';
import type { ShareVerifier } from '../../src/pool/share-verifier.js';
import type {
  ConnectionInfo,
  LoginRequest,
  MinerSessionSink,
  StratumJob,
} from '../../src/pool/stratum-backend.js';
import type { ActiveTemplate, TemplateChange, TemplateSource } from '../../src/pool/template-source.js';
import type { Vardiff } from '../../src/pool/vardiff.js';
import { cnUpx2 } from '../../src/pow/reference/cn-upx2.js';
import { RpcError } from '../../src/rpc/rpc-error.js';
import { DEFAULT_BAN_POLICY_OPTIONS, DEFAULT_POOL_BACKEND_OPTIONS } from '../helpers/config-defaults.js';
import { readJsonFixture } from '../helpers/fixtures.js';

/** Real addresses from test/fixtures/vectors/format.json (`addresses`). */
export const ADDRESS =
  'fireVHx639SLMhzmBoJ8drTXbVyv2eRG6A8aMLc1taTiRNwk8pnwXpBDUSjH1dT5fg7yVVZrKkvm31CmigAMdVDg7sgxJmAUNp';
export const ADDRESS_2 =
  'fireLatcLpwh9ut8LYbz1uTUfe9mhdnqF3n9TM79QdSx83VX1FDsP5z3TcfJRiFd4NjUw5QWBC6FaFrwY3LAGiHr5iQPKvTHmW';
export const INTEGRATED_ADDRESS =
  'fire6iWRVZM9uDpBemrFkeHny8p4R7djH9uDpBemrFkeHny8p4R7djH9uDpBemrFkeHny8p4R7djH9uDpBemrFkeHny9CdrnBKNLMhzmBoJ8drTXbVyv2eRG6A8aMLc1taTiRNwk8pnwXpBDUSjH1dT5fg7yVVZrKkvm31CmigAMdVDg7sgxGUKHzS';

export const silentLogger: Logger = createLogger({ level: 'silent' });

interface TemplateResult {
  blocktemplate_blob: string;
  difficulty: number;
  height: number;
  reserved_offset: number;
}

/** A real fuegod template (test/fixtures/fuegod-rpc/templates/gbt-hNNNN-vV.json). */
export function loadFixtureTemplate(height: number, majorVersion = 9): BlockTemplate {
  const name = `fuegod-rpc/templates/gbt-h${String(height).padStart(4, '0')}-v${majorVersion}.json`;
  const capture = readJsonFixture<{ request: { body: string }; response_raw: string }>(name);
  const request = JSON.parse(capture.request.body) as { params: { reserve_size: number } };
  const { result } = JSON.parse(capture.response_raw) as { result: TemplateResult };
  return parseBlockTemplate({
    blob: hexToBytes(result.blocktemplate_blob),
    parentStyle: 'pool',
    reservedOffset: result.reserved_offset,
    reserveSize: request.params.reserve_size,
    height: result.height,
    difficulty: BigInt(result.difficulty),
  });
}

export function activeTemplate(
  id: number,
  height: number,
  networkDifficulty: bigint,
  receivedAtMs = 0,
  majorVersion = 9,
): ActiveTemplate {
  const template = loadFixtureTemplate(height, majorVersion);
  return { id, template, height, networkDifficulty, prevHash: bytesToHex(template.prevId), receivedAtMs };
}

export class FakeTemplateSource implements TemplateSource {
  #current: ActiveTemplate | undefined;
  readonly #listeners = new Set<(template: ActiveTemplate, change: TemplateChange) => void>();

  constructor(initial?: ActiveTemplate) {
    this.#current = initial;
  }

  current(): ActiveTemplate | undefined {
    return this.#current;
  }

  onTemplate(listener: (template: ActiveTemplate, change: TemplateChange) => void): () => void {
    this.#listeners.add(listener);
    return () => this.#listeners.delete(listener);
  }

  emit(template: ActiveTemplate, change: TemplateChange): void {
    this.#current = template;
    for (const listener of this.#listeners) listener(template, change);
  }
}

/** cn/upx2 with a cache: the test "miner" and the verifier hash the same inputs, so each costs one hash. */
const hashCache = new Map<string, Uint8Array>();
export function hashUpx2(input: Uint8Array): Uint8Array {
  const key = bytesToHex(input);
  let hash = hashCache.get(key);
  if (hash === undefined) {
    hash = cnUpx2(input);
    hashCache.set(key, hash);
  }
  return hash;
}

/** Hashes with the TypeScript reference, asynchronously; can be paused to hold shares "in flight". */
export class FakeVerifier implements ShareVerifier {
  accepting = true;
  failWith: unknown;
  calls = 0;
  #gate: Promise<void> | undefined;
  #open: (() => void) | undefined;

  pause(): void {
    this.#gate = new Promise((resolve) => {
      this.#open = resolve;
    });
  }

  resume(): void {
    this.#open?.();
    this.#gate = undefined;
  }

  async verify(hashingBlob: Uint8Array): Promise<Uint8Array> {
    this.calls++;
    const input = hashingBlob.slice();
    await new Promise((resolve) => setImmediate(resolve));
    if (this.#gate !== undefined) await this.#gate;
    if (this.failWith !== undefined) throw this.failWith;
    return hashUpx2(input);
  }

  canAcceptWork(_peer: string): boolean {
    return this.accepting;
  }

  /** Peers whose waiting submits were dropped (cancel). */
  readonly cancelled: string[] = [];

  cancel(peer: string): number {
    this.cancelled.push(peer);
    return 0;
  }
}

export class FakeLedger implements ShareLedger {
  readonly shares: AcceptedShare[] = [];
  readonly candidates: BlockCandidate[] = [];
  readonly refusals: { blockHash: string; reason: BlockRefusalReason }[] = [];
  fail = false;

  async recordShare(share: AcceptedShare): Promise<void> {
    if (this.fail) throw new Error('redis down');
    this.shares.push(share);
  }

  async recordBlockCandidate(candidate: BlockCandidate): Promise<void> {
    if (this.fail) throw new Error('redis down');
    this.candidates.push(candidate);
  }

  async recordBlockRefusal(
    candidate: BlockCandidate,
    reason: BlockRefusalReason,
  ): Promise<RefusalRecordOutcome> {
    if (this.fail) throw new Error('redis down');
    this.refusals.push({ blockHash: candidate.hash, reason });
    return reason === 'already-on-chain' ? 'promoted' : 'recorded';
  }
}

export type SubmitBehaviour = 'accept' | 'reject' | 'transport';

export class FakeDaemon {
  readonly submitted: string[] = [];
  submitBehaviour: SubmitBehaviour = 'accept';
  aliases = new Map<string, string>();
  aliasEndpoint: 'present' | 'missing' | 'down' = 'present';
  aliasLookups = 0;
  /** The chain as getlastblockheader / getblockheaderbyheight show it; no tip: both fail. */
  tip: { height: number; hash: string } | undefined;
  readonly mainChain = new Map<number, string>();

  async getLastBlockHeader(): Promise<{ height: number; hash: string }> {
    if (this.tip === undefined) throw new RpcError('RPC_UNREACHABLE', 'connection refused', {});
    return this.tip;
  }

  async getBlockHeaderByHeight(height: number): Promise<{ hash: string }> {
    const hash = this.mainChain.get(height);
    if (hash === undefined)
      throw new RpcError('RPC_ERROR', 'To big height', { rpcCode: -2, rpcMessage: 'To big height' });
    return { hash };
  }

  async submitBlock(blockHex: string): Promise<void> {
    this.submitted.push(blockHex);
    if (this.submitBehaviour === 'reject') {
      throw new RpcError('RPC_ERROR', 'Block not accepted', {
        rpcCode: -7,
        rpcMessage: 'Block not accepted',
      });
    }
    if (this.submitBehaviour === 'transport') throw new RpcError('RPC_TIMEOUT', 'timed out', {});
  }

  async getAlias(alias: string): Promise<{ found: boolean; address: string }> {
    this.aliasLookups++;
    if (this.aliasEndpoint === 'missing') throw new RpcError('RPC_NOT_SUPPORTED', 'not supported', {});
    if (this.aliasEndpoint === 'down') throw new RpcError('RPC_UNREACHABLE', 'connection refused', {});
    const address = this.aliases.get(alias);
    return address === undefined ? { found: false, address: '' } : { found: true, address };
  }
}

export class FakeSink implements MinerSessionSink {
  readonly jobs: StratumJob[] = [];
  closedWith: string | undefined;

  sendJob(job: StratumJob): void {
    this.jobs.push(job);
  }

  close(reason: string): void {
    this.closedWith = reason;
  }
}

export function connection(overrides: Partial<ConnectionInfo> = {}): ConnectionInfo {
  return {
    remoteAddress: '10.0.0.1',
    port: 3333,
    tls: false,
    startDifficulty: 1,
    fixedDifficulty: false,
    solo: false,
    ...overrides,
  };
}

/**
 * The pool's bans held in this process only (what a BanRegistry keeps in its view), recording
 * the bans handed to it; `adopt` and `lift` stand for changes made elsewhere.
 */
export class FakeBanRegistry implements BanRegistry {
  readonly local: LocalBans;
  /** Every ban handed to ban(), in order. */
  readonly banned: Ban[] = [];

  constructor(options: { clock?: () => number; exemptIps?: readonly string[] } = {}) {
    this.local = new LocalBans(
      { ipv6PrefixLength: 64, exemptIps: options.exemptIps ?? [] },
      {
        ...(options.clock ? { clock: options.clock } : {}),
        onListenerError: (error) => {
          throw error;
        },
      },
    );
  }

  async list(): Promise<BanEntry[]> {
    return this.local.list();
  }

  async ban(ban: Ban): Promise<BanEntry> {
    this.banned.push(ban);
    return this.local.put(ban);
  }

  async unban(ip: string): Promise<boolean> {
    return this.local.remove(ip);
  }

  isBanned(peerKey: string): boolean {
    return this.local.isBanned(peerKey);
  }

  onChange(listener: (change: BanChange) => void): () => void {
    return this.local.onChange(listener);
  }
}

/** A manual clock. */
export class TestClock {
  constructor(public nowMs = 1_000_000) {}
  readonly now = (): number => this.nowMs;
  advance(ms: number): void {
    this.nowMs += ms;
  }
}

/** The nonce (8 hex) and result (64 hex) a miner would submit for `job` and nonce value `n`. */
export function mine(job: StratumJob, n: number): { nonce: string; result: string } {
  const blob = hexToBytes(job.blob);
  const nonceBytes = Buffer.alloc(4);
  // As XMRig: a blob with a non-zero nonce keeps its top byte (auto nicehash, stratum.md §6.4).
  const reserved = Buffer.from(blob.subarray(39, 43)).readUInt32LE(0) !== 0;
  nonceBytes.writeUInt32LE(reserved ? ((blob[42]! << 24) | (n & 0xffffff)) >>> 0 : n >>> 0, 0);
  blob.set(nonceBytes, 39);
  return { nonce: nonceBytes.toString('hex'), result: bytesToHex(hashUpx2(blob)) };
}

/** Lets queued setImmediate callbacks (broadcast chunks, fake verifier) run. */
export async function flushImmediates(times = 5): Promise<void> {
  for (let i = 0; i < times; i++) await new Promise((resolve) => setImmediate(resolve));
}

/**
 * A pool core over fakes, for tests of jobs and shares: template 1 at height 10 at
 * `networkDifficulty`, vardiff and login difficulties down to 1, bans off, one test clock for both
 * the wall and the elapsed clock; `overrides` over the config's defaults.
 */
export function fakePoolBackend(overrides: Partial<PoolBackendOptions> = {}, networkDifficulty = 1n << 60n) {
  const clock = new TestClock();
  const templates = new FakeTemplateSource(activeTemplate(1, 10, networkDifficulty));
  const ledger = new FakeLedger();
  const daemon = new FakeDaemon();
  const backend = new PoolBackend(
    {
      ...DEFAULT_POOL_BACKEND_OPTIONS,
      vardiff: { ...DEFAULT_POOL_BACKEND_OPTIONS.vardiff, minDifficulty: 1 },
      minLoginDifficulty: 1,
      extraNonceStart: 0,
      ban: { ...DEFAULT_BAN_POLICY_OPTIONS, enabled: false },
      ...overrides,
    },
    {
      templates,
      verifier: new FakeVerifier(),
      ledger,
      daemon,
      logger: silentLogger,
      clock: clock.now,
      elapsedClock: clock.now,
      bans: new FakeBanRegistry({ clock: clock.now }),
    },
  );
  return { clock, templates, ledger, daemon, backend };
}

/**
 * A pool core over fakes (template at height 10, network difficulty 10^12, bans off but the
 * registry real), logging in XMRig-like from `remoteAddress`: for tests of what one host may do.
 */
export function hostTestBackend(overrides: Partial<PoolBackendOptions> = {}) {
  const clock = new TestClock();
  const bans = new FakeBanRegistry({ clock: clock.now });
  const backend = new PoolBackend(
    {
      ...DEFAULT_POOL_BACKEND_OPTIONS,
      extraNonceStart: 0,
      ban: { ...DEFAULT_BAN_POLICY_OPTIONS, enabled: false },
      ...overrides,
    },
    {
      templates: new FakeTemplateSource(activeTemplate(1, 10, 10n ** 12n)),
      verifier: new FakeVerifier(),
      ledger: new FakeLedger(),
      daemon: new FakeDaemon(),
      logger: silentLogger,
      clock: clock.now,
      elapsedClock: clock.now,
      bans,
    },
  );
  const login = (address: string, remoteAddress: string) => {
    const request: LoginRequest = { login: address, pass: 'x', agent: 'XMRig/6.16.0', algo: ['cn/upx2'] };
    return backend.login(request, connection({ remoteAddress }), new FakeSink());
  };
  return { clock, bans, backend, login };
}

/** A logged-in XMRig session at `difficulty` (fixed, or under `vardiff`), keeping `jobsPerSession` jobs. */
export function minerSession(
  id: string,
  difficulty: number,
  vardiff?: Vardiff,
  jobsPerSession = 4,
): MinerSession {
  return new MinerSession({
    id,
    connection: connection(),
    peer: connection().remoteAddress,
    sink: new FakeSink(),
    address: ADDRESS,
    worker: 'rig',
    solo: false,
    agent: 'XMRig/6.16.0',
    vardiff,
    fixedDifficulty: difficulty,
    jobsPerSession,
  });
}
