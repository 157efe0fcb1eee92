import { AddressError, decodeAddress } from '../../fuego/address.js';
import { type CliCommand, type CliIo, UsageError, writeLine } from '../command.js';

/**
 * `fuego-pool address check ADDRESS`: exit 0 with the decoded address as one JSON line on stdout,
 * or exit 1 with `invalid address: <reason> (<CODE>)` on stderr.
 */
export const addressCheckCommand: CliCommand = {
  path: ['address', 'check'],
  usage: 'fuego-pool address check ADDRESS',
  summary: 'validate a Fuego address and print its keys and payment id as JSON',
  async run(args: string[], io: CliIo): Promise<number> {
    const [address, ...extra] = args;
    if (address === undefined) throw new UsageError('missing ADDRESS');
    if (extra.length > 0) throw new UsageError(`expected one ADDRESS, got ${args.length} arguments`);
    try {
      const decoded = decodeAddress(address);
      const report = {
        valid: true,
        type: decoded.type,
        paymentId: decoded.type === 'integrated' ? decoded.paymentId : null,
        spendPublicKey: decoded.spendPublicKey,
        viewPublicKey: decoded.viewPublicKey,
      };
      writeLine(io.stdout, JSON.stringify(report));
      return 0;
    } catch (error) {
      if (!(error instanceof AddressError)) throw error;
      writeLine(io.stderr, `invalid address: ${error.message} (${error.code})`);
      return 1;
    }
  },
};
