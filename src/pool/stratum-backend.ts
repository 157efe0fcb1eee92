/**
 * The seam between the stratum server (src/servers/stratum: sockets, framing, limits, TLS) and
 * the pool core (src/pool: logins, jobs, share validation, bans). The server never interprets a
 * login or a share; the core never touches a socket. Refusals are thrown as StratumError
 * (src/pool/stratum-errors.ts), whose code decides the wire message and whether to close.
 */

/**
 * A job as it goes on the wire inside `login` results, `getjob` results and `job` pushes (the
 * first five fields, in XMRig's order), and how its blob was made, which never goes on the wire.
 */
export interface StratumJob {
  readonly job_id: string;
  /** Hashing blob, hex; the miner writes its nonce at bytes 39..42. */
  readonly blob: string;
  /** 8 hex characters (4-byte form) or 16 (8-byte form); never "00000000". */
  readonly target: string;
  readonly algo: 'cn/upx2';
  readonly height: number;
  /**
   * On a blob shared with other sessions (JobManager.issueShared): `blob` is exactly
   * `sharedBlob.head + nonceTopHex + sharedBlob.tail`, with the same `sharedBlob` object for every
   * session on that blob. So what is the same for all of them is checked once per blob, not once
   * per session.
   */
  readonly sharedBlob?: SharedBlobHex;
  /** With `sharedBlob`: this session's top nonce byte, two hex digits. */
  readonly nonceTopHex?: string;
  /** With `sharedBlob`: the job id without `nonceTopHex`, the same for every session on the blob. */
  readonly jobIdPrefix?: string;
}

/** A blob's hex around its nonce's top byte (blob byte 42), as one shared blob's sessions all get it. */
export interface SharedBlobHex {
  readonly head: string;
  readonly tail: string;
}

/** What the server knows about the port and peer of a connection. */
export interface ConnectionInfo {
  /** Peer IP as the socket reports it (never a header). */
  readonly remoteAddress: string;
  readonly port: number;
  readonly tls: boolean;
  /** Start difficulty of the port. */
  readonly startDifficulty: number;
  /** Port refuses vardiff: every miner keeps the port difficulty (or its `+DIFF`). */
  readonly fixedDifficulty: boolean;
  /** Every miner on this port mines solo. */
  readonly solo: boolean;
}

export interface LoginRequest {
  readonly login: string;
  readonly pass: string;
  readonly agent?: string;
  readonly rigid?: string;
  /** Algorithms the miner can mine (XMRig always sends them); absent for old miners. */
  readonly algo?: readonly string[];
}

export interface LoginResult {
  /** Session id, a string (XMRig rejects a number). */
  readonly sessionId: string;
  readonly job: StratumJob;
  /** e.g. ["algo", "keepalive"] (and "nicehash" only where the pool really reserves byte 42). */
  readonly extensions: readonly string[];
}

export interface SubmitRequest {
  readonly jobId: string;
  readonly nonce: string;
  readonly result: string;
  readonly algo?: string;
}

/** How the core reaches a connected miner after login (new jobs, or a forced close). */
export interface MinerSessionSink {
  sendJob(job: StratumJob): void;
  close(reason: string): void;
}

export interface StratumBackend {
  /** Throws StratumError (e.g. INVALID_LOGIN, NO_COMPATIBLE_ALGO, NO_TEMPLATE, BANNED). */
  login(request: LoginRequest, connection: ConnectionInfo, sink: MinerSessionSink): Promise<LoginResult>;
  /** A fresh job (new job id and blob). Throws UNAUTHENTICATED for an unknown session. */
  getJob(sessionId: string): StratumJob;
  /**
   * Resolves once the share is verified and durable; throws StratumError for every refusal
   * (UNAUTHENTICATED, INVALID_JOB_ID, BLOCK_EXPIRED, DUPLICATE_SHARE, LOW_DIFFICULTY, ...).
   */
  submit(sessionId: string, request: SubmitRequest): Promise<void>;
  /** A keepalived for the session; throws UNAUTHENTICATED for an unknown session. */
  keepalive(sessionId: string): void;
  /** The connection is gone: forget the session. */
  disconnect(sessionId: string): void;
  /**
   * False while the peer at `ip` holds its share of the verifier's queue: the server stops reading
   * that connection's submits until it is true again (other peers go on).
   */
  canAcceptSubmits(ip: string): boolean;
  /** Checked by the server when a connection opens. */
  isBanned(ip: string): boolean;
}
