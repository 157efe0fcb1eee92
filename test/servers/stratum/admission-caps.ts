/** Connection caps of tests about the per-IP and total caps: the IPv6 aggregate cap out of the way. */
export const NO_AGGREGATE_CAP = {
  maxConnectionsPerIpv6Aggregate: 1_000_000,
  ipv6AggregatePrefixLength: 48,
} as const;
