import { existsSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import fastifyStatic from '@fastify/static';
import type { FastifyInstance } from 'fastify';
import { findPackageRoot } from '../../package-root.js';
import { ApiConfigError } from './api-options.js';

/** The web dashboard shipped with the package (`dashboard/` beside package.json): the default `staticDir`. */
export function dashboardDir(): string {
  return join(findPackageRoot(import.meta.url), 'dashboard');
}

/** uPlot's browser build (ESM + CSS), which the dashboard loads from `/vendor/uplot/`. */
function uplotBrowserDir(): string {
  return dirname(createRequire(import.meta.url).resolve('uplot'));
}

/**
 * Serves `staticDir` at `/` (index.html for a folder) and uPlot's browser build at `/vendor/uplot/`.
 * A file or folder whose name starts with a dot is never served (404): an operator's folder may be
 * a git checkout with `.git/` or hold a `.env` (@fastify/static serves them by default).
 */
export async function registerDashboardFiles(app: FastifyInstance, staticDir: string): Promise<void> {
  // A wrong folder would otherwise only show as a 404 in the operator's browser.
  if (!existsSync(join(staticDir, 'index.html'))) {
    throw new ApiConfigError('INVALID_API_OPTIONS', `api.staticDir: no index.html in ${staticDir}`, {
      key: 'staticDir',
    });
  }
  await app.register(fastifyStatic, {
    root: staticDir,
    prefix: '/',
    index: 'index.html',
    dotfiles: 'ignore',
  });
  // The dashboard's charting library, served from node_modules (never a CDN): a second root.
  await app.register(fastifyStatic, {
    root: uplotBrowserDir(),
    prefix: '/vendor/uplot/',
    decorateReply: false,
    dotfiles: 'ignore',
  });
}
