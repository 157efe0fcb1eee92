import { readdirSync } from 'node:fs';
import { fixturePath, readFixture, readJsonFixture } from './fixtures.js';

/*
 * Every captured getblocktemplate result of a real fuegod (test/fixtures/fuegod-rpc, see INDEX.md
 * there) with the reserve_size it was asked with: the templates/ captures (major versions 1..9),
 * the top-level exchanges and the unsolved ones.
 */

export interface TemplateResult {
  blocktemplate_blob: string;
  difficulty: number;
  height: number;
  reserved_offset: number;
}

export interface LoadedTemplate {
  name: string;
  result: TemplateResult;
  reserveSize: number;
}

/** Body of a captured `.request.txt` (method line, headers, blank line, body). */
export function requestBody(relative: string): string {
  const text = readFixture(relative);
  return text.slice(text.indexOf('\n\n') + 2).trim();
}

export function loadCapturedTemplates(): LoadedTemplate[] {
  const loaded: LoadedTemplate[] = [];
  const dir = 'fuegod-rpc/templates';
  for (const file of readdirSync(fixturePath(dir))
    .filter((f) => f.endsWith('.json'))
    .sort()) {
    const capture = readJsonFixture<{ request: { body: string }; response_raw: string }>(`${dir}/${file}`);
    const request = JSON.parse(capture.request.body) as { params: { reserve_size: number } };
    const response = JSON.parse(capture.response_raw) as { result: TemplateResult };
    loaded.push({ name: file, result: response.result, reserveSize: request.params.reserve_size });
  }
  const top = 'fuegod-rpc';
  for (const file of readdirSync(fixturePath(top)).filter((f) =>
    /getblocktemplate.*\.response\.body$/.test(f),
  )) {
    const response = JSON.parse(readFixture(`${top}/${file}`)) as { result?: TemplateResult };
    if (response.result === undefined) continue; // error responses (bad address, reserve too big)
    const request = JSON.parse(requestBody(`${top}/${file.replace('.response.body', '.request.txt')}`)) as {
      params: { reserve_size: number };
    };
    loaded.push({ name: file, result: response.result, reserveSize: request.params.reserve_size });
  }
  for (const file of readdirSync(fixturePath(`${top}/unsolved`)).filter((f) => f.endsWith('.json'))) {
    const capture = readJsonFixture<{ getblocktemplate: { request: string; response_raw: string } }>(
      `${top}/unsolved/${file}`,
    );
    const request = JSON.parse(capture.getblocktemplate.request) as { params: { reserve_size: number } };
    const response = JSON.parse(capture.getblocktemplate.response_raw) as { result: TemplateResult };
    loaded.push({
      name: `unsolved/${file}`,
      result: response.result,
      reserveSize: request.params.reserve_size,
    });
  }
  return loaded;
}
