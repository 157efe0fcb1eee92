import { isIP } from 'node:net';
import { ipv6Groups } from '../../pool/peer-key.js';

/**
 * The classic BPF program that a listening socket runs on every packet sent to it (SYNs and the
 * handshake's last ACK): it drops the packets of the sources listed and keeps the rest. Built
 * here, attached by listener-filter.ts. An accepted socket inherits the program its listener had
 * at that moment; it never drops that socket's own packets, as its source was not listed then.
 */

/** A source whose connection attempts the kernel drops: an address or a network. */
export interface DropSource {
  readonly family: 4 | 6;
  /** 4 or 16 bytes; bits past prefixLength are ignored. */
  readonly bytes: Uint8Array;
  readonly prefixLength: number;
}

// The BPF instruction classes and modes used (linux/filter.h, linux/bpf_common.h).
const LD_B_ABS = 0x30;
const LD_W_ABS = 0x20;
const ALU_RSH_K = 0x74;
const ALU_AND_K = 0x54;
const JMP_JA = 0x05;
const JMP_JEQ_K = 0x15;
const RET_K = 0x06;
/** Loads at SKF_NET_OFF + n read the network header: the IP header, whatever the socket's layer. */
const SKF_NET_OFF = -0x100000;
const KEEP = 0xffffffff;
const DROP = 0;
/** The kernel's BPF_MAXINSNS. */
const MAX_INSTRUCTIONS = 4096;

type Instruction = readonly [code: number, jt: number, jf: number, k: number];

const net = (offset: number): number => (SKF_NET_OFF + offset) >>> 0;

/** The source of a peer key (peer-key.ts: "1.2.3.4", "2001:db8::1" or "2001:db8:1:2::/64"), or null. */
export function dropSourceOf(key: string): DropSource | null {
  const slash = key.indexOf('/');
  const address = slash === -1 ? key : key.slice(0, slash);
  const family = isIP(address);
  if (family !== 4 && family !== 6) return null;
  const bits = family === 4 ? 32 : 128;
  const prefixLength = slash === -1 ? bits : Number(key.slice(slash + 1));
  // A network wider than /8 is no peer of ours: never drop that much by mistake.
  if (!Number.isInteger(prefixLength) || prefixLength < 8 || prefixLength > bits) return null;
  const bytes =
    family === 4
      ? Uint8Array.from(address.split('.').map(Number))
      : Uint8Array.from(ipv6Groups(address).flatMap((group) => [group >> 8, group & 0xff]));
  return { family, bytes, prefixLength };
}

/** The source's address words (big-endian, as BPF loads them) and their masks, up to its prefix. */
function wordsOf(source: DropSource): Array<{ word: number; mask: number }> {
  const words: Array<{ word: number; mask: number }> = [];
  for (let bit = 0; bit < source.prefixLength; bit += 32) {
    const i = bit / 8;
    const value =
      ((source.bytes[i]! << 24) |
        (source.bytes[i + 1]! << 16) |
        (source.bytes[i + 2]! << 8) |
        source.bytes[i + 3]!) >>>
      0;
    const kept = Math.min(32, source.prefixLength - bit);
    const mask = kept === 32 ? KEEP : (KEEP << (32 - kept)) >>> 0;
    words.push({ word: (value & mask) >>> 0, mask });
  }
  return words;
}

/** Compares the source's words; falls through to DROP on a match, jumps past it otherwise. */
function matchSource(source: DropSource, addressOffset: number): Instruction[] {
  const words = wordsOf(source);
  const body: Instruction[][] = words.map(({ word, mask }, index) => [
    [LD_W_ABS, 0, 0, net(addressOffset + 4 * index)],
    ...(mask === KEEP ? [] : [[ALU_AND_K, 0, 0, mask] as Instruction]),
    [JMP_JEQ_K, 0, 0xff, word], // jf patched below: to the instruction after this source's DROP
  ]);
  const flat = body.flat();
  return [
    ...flat.map(
      ([code, jt, jf, k], i): Instruction =>
        code === JMP_JEQ_K ? [code, jt, flat.length - i, k] : [code, jt, jf, k],
    ),
    [RET_K, 0, 0, DROP],
  ];
}

/**
 * The program for `sources` (at most MAX_INSTRUCTIONS; callers cap the list). IPv4 packets are
 * matched by their source address (IP header offset 12), IPv6 ones by theirs (offset 8); an
 * IPv4 peer of a dual-stack listener sends IPv4 packets, so an IPv4 source covers it there too.
 */
export function dropProgram(sources: readonly DropSource[]): Uint32Array {
  const v4 = sources.filter((s) => s.family === 4).flatMap((s) => matchSource(s, 12));
  const v6 = sources.filter((s) => s.family === 6).flatMap((s) => matchSource(s, 8));
  const program: Instruction[] = [
    [LD_B_ABS, 0, 0, net(0)],
    [ALU_RSH_K, 0, 0, 4], // the IP version
    [JMP_JEQ_K, 1, 0, 4],
    [JMP_JA, 0, 0, v4.length + 1], // not IPv4: to the IPv6 part
    ...v4,
    [RET_K, 0, 0, KEEP],
    [JMP_JEQ_K, 1, 0, 6], // A still holds the version here
    [RET_K, 0, 0, KEEP],
    ...v6,
    [RET_K, 0, 0, KEEP],
  ];
  if (program.length > MAX_INSTRUCTIONS) {
    throw new RangeError(`drop program of ${program.length} instructions exceeds ${MAX_INSTRUCTIONS}`);
  }
  return Uint32Array.from(program.flat());
}
