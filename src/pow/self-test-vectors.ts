/**
 * A few cn/upx2 vectors (input -> 32-byte hash, lowercase hex) that every hasher must reproduce
 * before it is trusted with shares. Copied from test/fixtures/vectors:
 * - format.json `cn_slow_hash_light1_variant2`, computed with Fuego's own slow-hash.c
 *   (usexfg/fuego @ 3c32d98, x86 AES-NI path); one entry per final-hash index 0..3
 *   (BLAKE-256, Groestl-256, JH-256, Skein-256) so each finaliser is exercised, plus one input
 *   that is not 76 bytes long;
 * - upx2-xmrig.json, a share XMRig 6.16.0 submitted (blob A with nonce db000000 at bytes 39..42).
 * Six hashes cost a few ms natively and well under a second in TypeScript.
 */
export interface SelfTestVector {
  readonly label: string;
  readonly inputHex: string;
  readonly hashHex: string;
}

export const SELF_TEST_VECTORS: readonly SelfTestVector[] = Object.freeze([
  {
    label: 'format.json synthetic v9 blob, nonce 0x00000000, final hash 0 (BLAKE)',
    inputHex:
      '010080c3bbc2062bc71e117bf0544ec1c4a193a0c012c106f0bedc0c27b62feeef944bb16b83e3000000009c3893c33d9811506619ec100d1f82ee05d24e66beadba2713935ac712bab4ab01',
    hashHex: 'ac0ae0c2af9903ee3a3ac29ad599ecf9962de409454f01daa344ffef61187cef',
  },
  {
    label: 'format.json synthetic v9 blob, nonce 0xdeadbeef, final hash 1 (Groestl)',
    inputHex:
      '010080c3bbc2062bc71e117bf0544ec1c4a193a0c012c106f0bedc0c27b62feeef944bb16b83e3efbeadde9c3893c33d9811506619ec100d1f82ee05d24e66beadba2713935ac712bab4ab01',
    hashHex: 'ec84966a30b3803d40ccd0ac52bd469d8a48915d3cd167663142db46926e6a74',
  },
  {
    label: 'format.json synthetic v9 blob, nonce 0x00000001, final hash 2 (JH)',
    inputHex:
      '010080c3bbc2062bc71e117bf0544ec1c4a193a0c012c106f0bedc0c27b62feeef944bb16b83e3010000009c3893c33d9811506619ec100d1f82ee05d24e66beadba2713935ac712bab4ab01',
    hashHex: '6bcd73b5b0414d5e8356e2985ef05c53c2e0e2a351fcb4692ba04434145f03e6',
  },
  {
    label: 'format.json synthetic v9 blob, nonce 0x12345678, final hash 3 (Skein)',
    inputHex:
      '010080c3bbc2062bc71e117bf0544ec1c4a193a0c012c106f0bedc0c27b62feeef944bb16b83e3785634129c3893c33d9811506619ec100d1f82ee05d24e66beadba2713935ac712bab4ab01',
    hashHex: 'a90f07dd95748fc88b6062048305b732b99ac44473eb8dd04bd4b1ea9ae51a82',
  },
  {
    label: 'format.json 77-byte pattern input, final hash 1 (Groestl)',
    inputHex:
      '4d545b626970777e858c939aa1a8afb6bdc4cbd2d9e0e7eef5fc030a11181f262d343b424950575e656c737a81888f969da4abb2b9c0c7ced5dce3eaf1f8ff060d141b222930373e454c535a61',
    hashHex: 'f3eab86dc2990abe9400e6ed8da059cbf03229abe6730ea4684055cb36080a75',
  },
  {
    label: 'upx2-xmrig.json XMRig 6.16.0 share, blob A nonce db000000',
    inputHex:
      '0100c08cfdb9067f1b7ebaf58a8d7ceedf6602aa4300a6b2824ff86b36be2c3aa709631fa1cde0db000000e6acb9ae1092a816102241aca1255c739dce9a568d40ca96b7d3e81dd74bc50d01',
    hashHex: 'ed1135ed9ae1c2759e00f9b8db321eeb0707f3ff1769e6661a403904c0ed1400',
  },
]);
