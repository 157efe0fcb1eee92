import { PassThrough, Readable } from 'node:stream';
import { describe, expect, it } from 'vitest';
import type { CliIo } from '../../../src/cli/command.js';
import { hashCommand } from '../../../src/cli/commands/hash.js';
import { runCli } from '../../../src/cli/main.js';
import { readJsonFixture } from '../../helpers/fixtures.js';

interface XmrigVector {
  blob_sent: string;
  nonce: string;
  result: string;
}

/** XMRig shares as (hashing input, hash): the blob with hex chars 78..85 (bytes 39..42) = nonce. */
const shares = readJsonFixture<{ vectors: XmrigVector[] }>('vectors/upx2-xmrig.json')
  .vectors.filter((_, i) => i % 48 === 0)
  .map((v) => ({ inputHex: v.blob_sent.slice(0, 78) + v.nonce + v.blob_sent.slice(86), hashHex: v.result }));

function memoryIo(stdinText = ''): { io: CliIo; out: () => string; err: () => string } {
  const stdout = new PassThrough();
  const stderr = new PassThrough();
  let out = '';
  let err = '';
  stdout.on('data', (chunk: Buffer) => {
    out += chunk.toString('utf8');
  });
  stderr.on('data', (chunk: Buffer) => {
    err += chunk.toString('utf8');
  });
  return {
    io: { stdout, stderr, stdin: Readable.from([stdinText]), env: {} },
    out: () => out,
    err: () => err,
  };
}

// The addon is built by `npm ci`; FUEGO_POW_SKIP_NATIVE=1 opts out of the native cases.
const itNative = it.skipIf(process.env['FUEGO_POW_SKIP_NATIVE'] === '1');

const lines = (text: string) => text.split('\n').filter((line) => line !== '');

describe('fuego-pool hash', () => {
  itNative('reproduces XMRig shares given as arguments (native)', async () => {
    const { io, out, err } = memoryIo();
    const code = await hashCommand.run(['--impl', 'native', ...shares.map((s) => s.inputHex)], io);
    expect(code).toBe(0);
    expect(lines(out())).toEqual(shares.map((s) => s.hashHex));
    expect(err()).toBe('');
  });

  itNative(
    'hashes each non-empty stdin line when there are no arguments (portable, CRLF, blanks)',
    async () => {
      const stdin = `\n${shares.map((s) => `  ${s.inputHex.toUpperCase()}\r\n`).join('\n')}\n\n`;
      const { io, out } = memoryIo(stdin);
      expect(await hashCommand.run(['--impl=native-portable'], io)).toBe(0);
      expect(lines(out())).toEqual(shares.map((s) => s.hashHex));
    },
  );

  it('works with the TypeScript implementation and with auto', async () => {
    for (const impl of ['typescript', 'auto']) {
      const { io, out } = memoryIo();
      expect(await hashCommand.run([`--impl=${impl}`, shares[0]!.inputHex], io)).toBe(0);
      expect(lines(out())).toEqual([shares[0]!.hashHex]);
    }
  });

  it('runs through the CLI router, defaulting to auto', async () => {
    const { io, out } = memoryIo(`${shares[1]!.inputHex}\n`);
    expect(await runCli(['hash'], io)).toBe(0);
    expect(lines(out())).toEqual([shares[1]!.hashHex]);
  });

  it('reports each bad hex input on stderr, hashes the rest, exits 1', async () => {
    const { io, out, err } = memoryIo();
    const args = [shares[0]!.inputHex, 'zz', shares[1]!.inputHex, 'abc'];
    expect(await hashCommand.run(args, io)).toBe(1);
    expect(lines(out())).toEqual([shares[0]!.hashHex, shares[1]!.hashHex]);
    const messages = lines(err());
    expect(messages).toHaveLength(2);
    expect(messages[0]).toContain('"zz"');
    expect(messages[0]).toContain('BAD_HEX');
    expect(messages[1]).toContain('"abc"');
  });

  it('does the same for bad stdin lines', async () => {
    const { io, out, err } = memoryIo(`nothex\n${shares[2]!.inputHex}\n`);
    expect(await hashCommand.run([], io)).toBe(1);
    expect(lines(out())).toEqual([shares[2]!.hashHex]);
    expect(err()).toContain('"nothex"');
  });

  it('rejects an unknown --impl or option with a usage error (exit 2)', async () => {
    for (const args of [['--impl', 'gpu'], ['--impl'], ['--fast']]) {
      const { io, out, err } = memoryIo();
      expect(await runCli(['hash', ...args], io)).toBe(2);
      expect(out()).toBe('');
      expect(err()).toContain('usage: fuego-pool hash');
    }
  });
});
