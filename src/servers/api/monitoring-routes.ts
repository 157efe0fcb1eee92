import type { FastifyInstance } from 'fastify';
import type { PoolMetrics } from './api-metrics.js';
import { healthSchema, jsonSchema } from './api-schemas.js';
import type { HealthMonitor } from './health-monitor.js';

export interface MonitoringRouteModules {
  readonly health: HealthMonitor;
  readonly metrics: PoolMetrics;
}

/**
 * For the operator's monitoring: /health (200 ok or degraded, 503 failing, the same body either
 * way, so a load balancer can act on the status alone) and /metrics (Prometheus text).
 */
export function registerMonitoringRoutes(app: FastifyInstance, modules: MonitoringRouteModules): void {
  const { health, metrics } = modules;

  app.get(
    '/health',
    { schema: { response: { 200: jsonSchema(healthSchema), 503: jsonSchema(healthSchema) } } },
    async (_request, reply) => {
      const view = await health.check();
      return reply.status(view.status === 'failing' ? 503 : 200).send(view);
    },
  );

  app.get('/metrics', { schema: { response: { 200: { type: 'string' } } } }, async (_request, reply) => {
    const text = await metrics.render();
    return reply.type(metrics.contentType).send(text);
  });
}
