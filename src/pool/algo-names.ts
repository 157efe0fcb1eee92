/**
 * XMRig's canonical name for Fuego's PoW and the aliases it accepts (shared/spec/stratum.md §7).
 * Never list bare `cryptonight` / `cn`: in XMRig 6 those mean cn/0.
 */
export const UPX2_ALGO = 'cn/upx2';

const UPX2_ALGO_NAMES: ReadonlySet<string> = new Set([
  'cn/upx2',
  'cryptonight/upx2',
  'cn-extremelite/upx2',
  'cryptonight-upx/2',
]);

/** Whether `name` (any case) names cn/upx2. */
export function isUpx2AlgoName(name: unknown): boolean {
  return typeof name === 'string' && name.length <= 64 && UPX2_ALGO_NAMES.has(name.toLowerCase());
}

/**
 * Login policy: a miner that lists its algorithms must list cn/upx2; one that lists none (an old
 * or non-XMRig miner) is assumed to be configured for it.
 */
export function canMineUpx2(algos: readonly unknown[] | undefined): boolean {
  if (algos === undefined) return true;
  return Array.isArray(algos) && algos.some(isUpx2AlgoName);
}
