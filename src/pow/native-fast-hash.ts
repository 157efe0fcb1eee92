import { bytesToHex } from '../fuego/hex.js';
import { cnFastHash, type FastHash } from '../fuego/keccak.js';
import { loadNativeAddon } from './native.js';

/**
 * The native addon's `cn_fast_hash` (keccak), if the addon loads and agrees with the pure
 * implementation on a few inputs; otherwise undefined and callers keep the pure one. It is about
 * ten times faster, which matters where jobs are built for thousands of miners at once.
 */
export function nativeFastHash(): FastHash | undefined {
  let addon: ReturnType<typeof loadNativeAddon>;
  try {
    addon = loadNativeAddon();
  } catch {
    return undefined;
  }
  const probes = [new Uint8Array(0), new Uint8Array(76).fill(7), new Uint8Array(300).map((_, i) => i & 0xff)];
  for (const probe of probes) {
    if (bytesToHex(addon.fastHash(probe)) !== bytesToHex(cnFastHash(probe))) return undefined;
  }
  const into = (data: Uint8Array, out: Uint8Array, offset: number): void =>
    addon.fastHashInto(data, out, offset);
  const probe = new Uint8Array(40);
  into(probes[1]!, probe, 8);
  if (bytesToHex(probe.subarray(8)) !== bytesToHex(cnFastHash(probes[1]!))) return undefined;
  const chain = (work: Uint8Array, steps: Uint32Array, out: Uint8Array, from: number): void =>
    addon.fastHashChain(work, steps, out, from);
  if (!chainAgrees(chain)) return undefined;
  return Object.assign((data: Uint8Array) => addon.fastHash(data), { into, chain });
}

/**
 * One chain step with a branch of one sibling and its first 136-byte block kept (native/hash_chain.h),
 * against the pure keccak: twice, as the first call fills the kept state and the second reads it.
 */
function chainAgrees(chain: NonNullable<FastHash['chain']>): boolean {
  const work = new Uint8Array(250 + 201).map((_, i) => (i < 250 ? (i * 7) & 0xff : 0));
  const sibling = work.slice(150, 182);
  const expected = bytesToHex(
    cnFastHash(Uint8Array.from([...cnFastHash(work.subarray(0, 150)), ...sibling])),
  );
  const steps = Uint32Array.of(1, 0, 150, 150, 1, 200, 250, 1);
  for (let call = 0; call < 2; call++) {
    const out = new Uint8Array(32);
    chain(work, steps, out, 200);
    if (bytesToHex(out) !== expected) return false;
  }
  return true;
}
