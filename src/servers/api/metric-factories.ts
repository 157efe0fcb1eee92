import { Counter, Gauge, type Registry } from 'prom-client';

/** A metric's name, help and labels; every metric lives in the pool's own registry. */
export interface MetricSpec {
  readonly name: string;
  readonly help: string;
  readonly labelNames?: readonly string[];
}

export function gauge(registry: Registry, spec: MetricSpec): Gauge<string> {
  return new Gauge({ ...spec, labelNames: spec.labelNames ?? [], registers: [registry] });
}

export function counter(registry: Registry, spec: MetricSpec): Counter<string> {
  return new Counter({ ...spec, labelNames: spec.labelNames ?? [], registers: [registry] });
}
