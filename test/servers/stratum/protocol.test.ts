import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { StratumJob } from '../../../src/pool/stratum-backend.js';
import { StratumError } from '../../../src/pool/stratum-errors.js';
import {
  encodeError,
  encodeJobLine,
  encodeJobNotification,
  encodeResult,
  loginResultBody,
  MIN_REPLY_BYTES,
  parseRequestLine,
  readLoginParams,
  readSessionId,
  readSubmitParams,
} from '../../../src/servers/stratum/protocol.js';

const JOB: StratumJob = {
  blob: '0100'.padEnd(152, 'ab'),
  job_id: 'job1',
  target: '37894100',
  algo: 'cn/upx2',
  height: 1001,
};

function codeOf(fn: () => unknown): string | undefined {
  try {
    fn();
  } catch (error) {
    return (error as StratumError).code;
  }
  return undefined;
}

describe('parseRequestLine', () => {
  it('reads an XMRig login verbatim', () => {
    const line =
      '{"id":1,"jsonrpc":"2.0","method":"login","params":{"login":"test","pass":"x","agent":"XMRig/6.16.0 (Linux x86_64) libuv/1.42.0 gcc/5.4.0","rigid":"test-rig","algo":["cn/upx2","cn/1"]}}';
    const parsed = parseRequestLine(line);
    expect(parsed.request).toEqual({
      id: 1,
      method: 'login',
      params: expect.objectContaining({ login: 'test', rigid: 'test-rig' }),
    });
    expect(readLoginParams(parsed.request!.params)).toEqual({
      login: 'test',
      pass: 'x',
      agent: 'XMRig/6.16.0 (Linux x86_64) libuv/1.42.0 gcc/5.4.0',
      rigid: 'test-rig',
      algo: ['cn/upx2', 'cn/1'],
    });
  });

  it('keeps string ids as strings and integer ids as numbers', () => {
    expect(parseRequestLine('{"id":"7","method":"keepalived"}').request?.id).toBe('7');
    expect(parseRequestLine('{"id":7,"method":"keepalived"}').request?.id).toBe(7);
    expect(parseRequestLine('{"id":-3,"method":"x"}').request?.id).toBe(-3);
  });

  it('classifies unanswerable lines as typed violations', () => {
    expect(parseRequestLine('not json').violation?.code).toBe('NOT_JSON');
    expect(parseRequestLine('[1,2]').violation?.code).toBe('NOT_AN_OBJECT');
    expect(parseRequestLine('"x"').violation?.code).toBe('NOT_AN_OBJECT');
    expect(parseRequestLine('null').violation?.code).toBe('NOT_AN_OBJECT');
    for (const id of ['null', '1.5', '1e400', '12345678901234567890', '{}', '[]', 'true']) {
      expect(parseRequestLine(`{"id":${id},"method":"login"}`).violation?.code).toBe('BAD_ID');
    }
    expect(parseRequestLine('{"method":"login"}').violation?.code).toBe('BAD_ID');
  });

  it('turns a missing method into "" and non-object params into {}', () => {
    expect(parseRequestLine('{"id":1,"method":5,"params":[1]}').request).toEqual({
      id: 1,
      method: '',
      params: {},
    });
  });

  it('never throws on arbitrary text', () => {
    fc.assert(
      fc.property(fc.oneof(fc.string(), fc.json()), (text) => {
        const parsed = parseRequestLine(text);
        expect(parsed.request !== undefined || parsed.violation !== undefined).toBe(true);
      }),
      { numRuns: 500 },
    );
  });
});

describe('params readers', () => {
  it('login: requires a login string, tolerates odd optional fields', () => {
    expect(codeOf(() => readLoginParams({}))).toBe('INVALID_LOGIN');
    expect(codeOf(() => readLoginParams({ login: 5 }))).toBe('INVALID_LOGIN');
    expect(readLoginParams({ login: 'a', agent: 7, algo: 'cn/upx2' })).toEqual({
      login: 'a',
      pass: '',
      algo: ['cn/upx2'],
    });
    expect(readLoginParams({ login: 'a', algo: ['cn/upx2', 3, null] }).algo).toEqual(['cn/upx2']);
  });

  it('submit: type checks, keeps algo only when given', () => {
    const ok = { id: 's', job_id: 'j', nonce: 'db000000', result: 'ab'.repeat(32) };
    expect(readSubmitParams(ok)).toEqual({ jobId: 'j', nonce: 'db000000', result: 'ab'.repeat(32) });
    expect(readSubmitParams({ ...ok, algo: 'cn/upx2' }).algo).toBe('cn/upx2');
    expect(codeOf(() => readSubmitParams({ ...ok, job_id: 1 }))).toBe('INVALID_PARAMS');
    expect(codeOf(() => readSubmitParams({ ...ok, nonce: 219 }))).toBe('MALFORMED_NONCE');
    expect(codeOf(() => readSubmitParams({ ...ok, result: null }))).toBe('MALFORMED_RESULT');
    expect(codeOf(() => readSubmitParams({ ...ok, algo: 1 }))).toBe('INVALID_PARAMS');
  });

  it('session id only when a string', () => {
    expect(readSessionId({ id: 'abc' })).toBe('abc');
    expect(readSessionId({ id: 1 })).toBeUndefined();
  });
});

describe('encoders', () => {
  it('login result exactly as XMRig reads it', () => {
    const line = encodeResult(
      1,
      loginResultBody({ sessionId: 'probe-1', job: JOB, extensions: ['algo', 'keepalive'] }),
    );
    expect(line).toBe(
      `{"id":1,"jsonrpc":"2.0","error":null,"result":{"id":"probe-1","job":{"blob":"${JOB.blob}","job_id":"job1","target":"37894100","algo":"cn/upx2","height":1001},"status":"OK","extensions":["algo","keepalive"]}}\n`,
    );
  });

  it('errors use code -1 and the catalogue message; ids keep their type', () => {
    expect(encodeError(9, new StratumError('LOW_DIFFICULTY'))).toBe(
      '{"id":9,"jsonrpc":"2.0","error":{"code":-1,"message":"Low difficulty share"},"result":null}\n',
    );
    expect(encodeError('9', new StratumError('UNAUTHENTICATED'))).toContain('{"id":"9",');
  });

  it('job notifications carry only wire fields and no id', () => {
    const extra = { ...JOB, internal: 'secret' } as StratumJob;
    const line = encodeJobNotification(extra);
    expect(JSON.parse(line)).toEqual({ jsonrpc: '2.0', method: 'job', params: JOB });
    // XMRig's field order, as JSON.stringify of the wire job would write it.
    const { blob, job_id, target, algo, height } = JOB;
    expect(line).toBe(
      `{"jsonrpc":"2.0","method":"job","params":${JSON.stringify({ blob, job_id, target, algo, height })}}\n`,
    );
  });

  it('a job line is JSON.stringify of the wire job byte for byte, whatever its strings and height', () => {
    const text = fc.oneof(
      fc.stringMatching(/^[0-9a-f]{0,160}$/),
      fc.string({ unit: 'binary', maxLength: 40 }),
      fc.constantFrom('"', '\\', '\n', '\u2028', '\ud800', 'cn/upx2', ''),
    );
    const height = fc.oneof(fc.nat(), fc.double(), fc.constantFrom(-0, 2 ** 53, Number.NaN));
    fc.assert(
      fc.property(text, text, text, text, height, (blob, job_id, target, algo, h) => {
        const job = { blob, job_id, target, algo, height: h } as unknown as StratumJob;
        const json = `{"jsonrpc":"2.0","method":"job","params":${JSON.stringify({ blob, job_id, target, algo, height: h })}}`;
        expect(encodeJobNotification(job)).toBe(`${json.padEnd(MIN_REPLY_BYTES, ' ')}\n`);
      }),
      { numRuns: 2_000 },
    );
  });

  it('a job on a shared blob is written as the same wire job, with no trace of how its blob was made', () => {
    const text = fc.oneof(
      fc.stringMatching(/^[0-9a-f]{0,90}$/),
      fc.string({ unit: 'binary', maxLength: 20 }),
      fc.constantFrom('"', '\\', '\n', '\u2028', '\ud800', ''),
    );
    // One blob object for several sessions, as a broadcast hands it out, each with its own digits,
    // job id and target (a few vardiff levels), and now and then another algo or height. The job
    // id is the blob's prefix and the digits, as the pool makes it, or (no prefix) any other.
    const session = fc.record({
      top: text,
      prefix: fc.option(fc.oneof(fc.stringMatching(/^[0-9a-f]{8}$/), text), { nil: undefined }),
      job_id: fc.oneof(fc.stringMatching(/^[0-9a-f]{10}$/), text),
      target: fc.oneof(fc.constantFrom('b88d0600', '5c8f0200', 'e4ca0100'), text),
      algo: fc.oneof(fc.constant('cn/upx2'), text),
      height: fc.oneof(fc.constant(JOB.height), fc.nat(), fc.constantFrom(2 ** 53, Number.NaN)),
    });
    fc.assert(
      fc.property(text, text, fc.array(session, { minLength: 1, maxLength: 8 }), (head, tail, sessions) => {
        const sharedBlob = { head, tail };
        for (const { top, prefix, target, algo, height, ...rest } of sessions) {
          const blob = head + top + tail;
          const job_id = prefix === undefined ? rest.job_id : prefix + top;
          const job = {
            blob,
            job_id,
            target,
            algo,
            height,
            sharedBlob,
            nonceTopHex: top,
            ...(prefix === undefined ? {} : { jobIdPrefix: prefix }),
          } as unknown as StratumJob;
          const json = `{"jsonrpc":"2.0","method":"job","params":${JSON.stringify({ blob, job_id, target, algo, height })}}`;
          const expected = `${json.padEnd(MIN_REPLY_BYTES, ' ')}\n`;
          expect(encodeJobNotification(job)).toBe(expected);
          // The form the batched writer copies: the same bytes, and nothing written around them.
          const line = encodeJobLine(job);
          if (typeof line === 'string') {
            expect(line).toBe(expected);
            continue;
          }
          expect(line.text).toBe(expected);
          const out = Buffer.alloc(line.byteLength + 8, 0xee);
          expect(line.copyTo(out, 3)).toBe(line.byteLength);
          expect(out.subarray(3, 3 + line.byteLength)).toEqual(Buffer.from(expected, 'utf8'));
          expect([...out.subarray(0, 3), ...out.subarray(3 + line.byteLength)]).toEqual(Array(8).fill(0xee));
        }
      }),
      { numRuns: 2_000 },
    );
  });

  it("a pool's job on a shared blob is not made into a string for the batched writer", () => {
    const sharedBlob = { head: 'ab'.repeat(42), tail: 'cd'.repeat(33) };
    for (const top of ['01', '7f', 'ff']) {
      const blob = sharedBlob.head + top + sharedBlob.tail;
      const job = {
        ...JOB,
        blob,
        job_id: `0a0b0c0d${top}`,
        sharedBlob,
        nonceTopHex: top,
        jobIdPrefix: '0a0b0c0d',
      };
      const line = encodeJobLine(job);
      expect(typeof line).toBe('object');
      expect(typeof line === 'object' && line.text).toBe(
        encodeJobNotification({ ...JOB, blob, job_id: job.job_id }),
      );
    }
  });

  it('every line is at least 32 bytes and ends with a newline', () => {
    for (const line of [
      encodeResult(0, {}),
      encodeResult(1, { status: 'OK' }),
      encodeError(0, new StratumError('INTERNAL')),
      encodeJobNotification(JOB),
    ]) {
      expect(Buffer.byteLength(line)).toBeGreaterThanOrEqual(MIN_REPLY_BYTES + 1);
      expect(line.endsWith('\n')).toBe(true);
      expect(line.startsWith('{')).toBe(true);
    }
  });
});
