import { PassThrough } from 'node:stream';
import { describe, expect, it } from 'vitest';
import type { CliIo } from '../../../src/cli/command.js';
import { UsageError } from '../../../src/cli/command.js';
import { addressCheckCommand } from '../../../src/cli/commands/address-check.js';
import { readJsonFixture } from '../../helpers/fixtures.js';

interface AddressVector {
  address: string;
  type?: string;
  spend_public_key?: string;
  view_public_key?: string;
  payment_id_ascii_hex?: string;
}

const vectors = readJsonFixture<{ addresses: AddressVector[] }>('vectors/format.json').addresses;

/** In-memory streams; output is read back synchronously from the PassThrough buffers. */
function memoryIo(): { io: CliIo; stdout: () => string; stderr: () => string } {
  const out = new PassThrough();
  const err = new PassThrough();
  const captured = { out: '', err: '' };
  const drain = (stream: PassThrough): string => {
    const chunk: unknown = stream.read();
    return chunk === null ? '' : String(chunk);
  };
  return {
    io: { stdout: out, stderr: err, stdin: new PassThrough(), env: {} },
    stdout: () => {
      captured.out += drain(out);
      return captured.out;
    },
    stderr: () => {
      captured.err += drain(err);
      return captured.err;
    },
  };
}

describe('fuego-pool address check', () => {
  it('is registered under address check', () => {
    expect(addressCheckCommand.path).toEqual(['address', 'check']);
    expect(addressCheckCommand.usage).toBe('fuego-pool address check ADDRESS');
  });

  it('prints a standard address as JSON and exits 0', async () => {
    const vector = vectors.find((v) => v.address.length === 98)!;
    const { io, stdout, stderr } = memoryIo();
    expect(await addressCheckCommand.run([vector.address], io)).toBe(0);
    expect(stderr()).toBe('');
    expect(stdout().endsWith('\n')).toBe(true);
    expect(JSON.parse(stdout())).toEqual({
      valid: true,
      type: 'standard',
      paymentId: null,
      spendPublicKey: vector.spend_public_key,
      viewPublicKey: vector.view_public_key,
    });
  });

  it('prints an integrated address with its payment id', async () => {
    const vector = vectors.find((v) => v.type === 'integrated')!;
    const { io, stdout } = memoryIo();
    expect(await addressCheckCommand.run([vector.address], io)).toBe(0);
    expect(JSON.parse(stdout())).toEqual({
      valid: true,
      type: 'integrated',
      paymentId: vector.payment_id_ascii_hex,
      spendPublicKey: vector.spend_public_key,
      viewPublicKey: vector.view_public_key,
    });
  });

  it('reports an invalid address on stderr with its code and exits 1', async () => {
    const invalid = vectors.find((v) => v.address.length === 115)!;
    const { io, stdout, stderr } = memoryIo();
    expect(await addressCheckCommand.run([invalid.address], io)).toBe(1);
    expect(stdout()).toBe('');
    expect(stderr()).toMatch(/^invalid address: .+ \(WRONG_LENGTH\)\n$/);

    const good = vectors.find((v) => v.address.length === 98)!.address;
    const bad = memoryIo();
    expect(await addressCheckCommand.run([`${good.slice(0, 16)}O${good.slice(17)}`], bad.io)).toBe(1);
    expect(bad.stderr()).toBe("invalid address: invalid character 'O' at position 17 (BAD_CHARACTER)\n");
  });

  it('throws UsageError without exactly one argument', async () => {
    const { io } = memoryIo();
    await expect(addressCheckCommand.run([], io)).rejects.toBeInstanceOf(UsageError);
    await expect(addressCheckCommand.run(['a', 'b'], io)).rejects.toBeInstanceOf(UsageError);
  });
});
