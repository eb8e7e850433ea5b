'use strict';
// benchmarks.smoke.js — every benchmark of the README's table runs here, in its smoke mode:
// `--smoke` (its flags, its code, the tools it needs; the loadgen's own benches a run of a few
// seconds), a plan with `--dry-run`. A rename or a broken require fails CI, not the user who
// runs the benchmark. The commands come from the README's table itself (its one source).
const test = require('node:test');
const assert = require('node:assert/strict');
const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');
const { spawnSync } = require('node:child_process');

const ROOT = path.resolve(__dirname, '..');
const SMOKE_TIMEOUT_MS = 120_000;

/** [{ line, env, argv }] of the README's "Benchmarks" table: env assignments, the command, no [optional flags]. */
function benchmarkCommands(readme = fs.readFileSync(path.join(ROOT, 'README.md'), 'utf8')) {
  const section = readme.split(/^## /m).find((s) => s.startsWith('Benchmarks'));
  assert.ok(section, 'README.md has no "## Benchmarks" section');
  return [...section.matchAll(/^\| `([^`]+)` \|/gm)].map(([, line]) => {
    const words = line.replace(/\[[^\]]*\]/g, '').trim().split(/\s+/);
    const env = {};
    while (/^[A-Z_]+=/.test(words[0])) { const [k, v] = words.shift().split('='); env[k] = v; }
    return { line, env, argv: words };
  });
}

test('the README\'s benchmark table is read: every row a command', () => {
  const cmds = benchmarkCommands();
  assert.ok(cmds.length >= 10, `${cmds.length} benchmarks`);
  assert.deepEqual(benchmarkCommands('## Benchmarks\n| `A=1 x/y.sh [--n 3]` | z |\n| `node b.js` | w |\n## Next\n'),
    [{ line: 'A=1 x/y.sh [--n 3]', env: { A: '1' }, argv: ['x/y.sh'] }, { line: 'node b.js', env: {}, argv: ['node', 'b.js'] }]);
});

for (const { line, env, argv } of benchmarkCommands()) {
  const smoke = argv.some((w) => w.endsWith('run-experiment.sh')) ? '--dry-run' : '--smoke';
  test(`${line}: ${smoke}`, { timeout: SMOKE_TIMEOUT_MS }, () => {
    const [cmd, ...args] = argv;
    // No results database: a plan's dry run lists every round; no platform is started.
    // platform-ports: the home is one no platform runs in, so no port is taken.
    const r = spawnSync(cmd === 'node' ? process.execPath : path.join(ROOT, cmd), [...args, smoke], {
      cwd: ROOT, encoding: 'utf8', timeout: SMOKE_TIMEOUT_MS,
      env: { ...process.env, ...env, CFSCALE_RESULTS_URL: '', RESULTS_DATABASE_URL: '', CFSCALE_HOME: path.join(os.tmpdir(), 'cfscale-bench-smoke-never-started') },
    });
    assert.equal(r.status, 0, `${line} ${smoke}: exit ${r.status}\n${(r.stdout || '').slice(-1500)}\n${(r.stderr || '').slice(-1500)}`);
  });
}

module.exports = { benchmarkCommands };
