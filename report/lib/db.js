// db.js — the results database for the report and the experiment runner. The URL comes
// from --db, else CFSCALE_RESULTS_URL, else (platform local) `scripts/cfl service-url
// results-db`, the workstation's way to the local results database.
import { execFileSync } from 'node:child_process';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import pg from 'pg';

export const REPO_ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');

// Numeric columns (bigint, numeric) as JS numbers: counts and microseconds fit in 2^53.
pg.types.setTypeParser(20, (v) => Number(v));
pg.types.setTypeParser(1700, (v) => Number(v));

/** Resolve the results database URL; null when none is known. */
export function resultsUrl({ db, platform = 'local' } = {}) {
  if (db) return db;
  if (process.env.CFSCALE_RESULTS_URL) return process.env.CFSCALE_RESULTS_URL;
  if (platform !== 'local') return null;
  try {
    const out = execFileSync(path.join(REPO_ROOT, 'scripts/cfl'), ['service-url', 'results-db'], {
      encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'], timeout: 15_000,
    }).trim();
    return /^postgres(ql)?:\/\//.test(out) ? out : null;
  } catch {
    return null;
  }
}

export async function connect(url) {
  const client = new pg.Client({ connectionString: url, application_name: 'cfscale-report' });
  await client.connect();
  return client;
}
