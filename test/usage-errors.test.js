'use strict';
// usage-errors.test.js — every script's one-line usage errors (exit 1, nothing on stdout):
// they come before any cf command, so the scripts run with PLATFORM=cf and the real cf CLI
// logged in nowhere (an empty CF_HOME): nothing they could call would change anything. The
// errors that need a cf look-up (an app not pushed, the statistics plugin missing) are
// cf-local.test.js's, against the local platform.
const test = require('node:test');
const assert = require('node:assert/strict');
const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');
const { spawnSync } = require('node:child_process');

const ROOT = path.resolve(__dirname, '..');
const HOME = fs.mkdtempSync(path.join(os.tmpdir(), 'cfscale-usage-'));
test.after(() => fs.rmSync(HOME, { recursive: true, force: true }));

function run(script, args) {
  const res = spawnSync('bash', [path.join(ROOT, 'scripts', script), ...args], {
    encoding: 'utf8',
    env: { ...process.env, PATH: `${path.join(ROOT, '.tools/bin')}:${process.env.PATH}`, HOME, CF_HOME: HOME, PLATFORM: 'cf',
      CFSCALE_VARS_FILE: path.join(ROOT, 'manifests/vars-example.yml'), RESULTS_DATABASE_URL: '' },
  });
  return { code: res.status, stdout: res.stdout, stderr: res.stderr };
}

test('usage errors: one line on stderr, exit 1, nothing run', async (t) => {
  const RR = ['--app', 'node-app', '--duration', '5s'];
  const cases = [
    ['run-round.sh', ['--duration', '5s'], /--app is required/],
    ['run-round.sh', ['--app', 'nope', '--duration', '5s'], /unknown app "nope"/],
    ['run-round.sh', ['--app', 'loadgen', '--duration', '5s'], /loadgen is the instrument/],
    ['run-round.sh', [...RR, '--parallel', '2', '--rate', '10'], /--parallel and --rate exclude each other/],
    ['run-round.sh', ['--app', 'node-app'], /one of --duration or --requests is required/],
    ['run-round.sh', [...RR, '--requests', '10'], /--duration and --requests exclude each other/],
    ['run-round.sh', ['--app', 'node-app', '--duration', '10x'], /--duration must be a duration like/],
    ['run-round.sh', ['--app', 'node-app', '--duration', '0s'], /--duration must be above 0/],
    ['run-round.sh', [...RR, '--warmup', '5s'], /--warmup must be shorter than --duration/],
    ['run-round.sh', [...RR, '--timeout', 'soon'], /--timeout must be a duration/],
    ['run-round.sh', [...RR, '--instances', '0'], /--instances must be a positive integer/],
    ['run-round.sh', [...RR, '--loadgens', 'two'], /--loadgens must be a positive integer/],
    ['run-round.sh', [...RR, '--rate', '-3'], /--rate must be a positive number/],
    ['run-round.sh', [...RR, '--scenario', 'dance'], /--scenario must be one of/],
    ['run-round.sh', [...RR, '--prewarm', 'lots'], /--prewarm must be a non-negative integer, got "lots"/],
    ['run-round.sh', [...RR, '--max-error-rate', '5'], /--max-error-rate must be a fraction/],
    ['run-round.sh', [...RR, '--stats-source', 'guess'], /--stats-source must be/],
    ['run-round.sh', [...RR, '--cpu', '1'], /--cpu is local only/],
    ['run-round.sh', [...RR, '--front-proxies', '0'], /--front-proxies must be a positive integer, got "0"/],
    ['run-round.sh', [...RR, '--front-proxies', '2'], /--front-proxies is local only/],
    ['run-round.sh', [...RR, '--platform', 'mars'], /--platform must be local or cf/],
    ['run-round.sh', [...RR, '--bogus', '1'], /unknown option: --bogus/],
    ['run-round.sh', [...RR, '--label'], /--label needs a value/],
    ['run-round.sh', [...RR, 'extra'], /unexpected argument: extra/],
    ['run-round.sh', [...RR, '--seed-ads', '-1'], /--seed-ads must be a non-negative integer, got "-1"/],
    ['run-round.sh', [...RR, '--max-wait', 'later'], /--max-wait must be a duration like 500ms, 10s, 2m or 1h, got "later"/],
    ['run-round.sh', ['--app', 'node-app', '--requests', '0'], /--requests must be a positive integer, got "0"/],
    ['run-round.sh', [...RR, '--timeout', '0s'], /--timeout must be above 0/],
    ['run-round.sh', [...RR, '--event', '2s:grow'], /--event must be AT:scale=N, AT:deploy or AT:restart/],
    ['run-round.sh', [...RR, '--event', '5s:scale=3'], /--event 5s:scale=3: 5s is not inside the 5s measured window/],
    ['run-round.sh', [...RR, '--event', '2s:scale=1'], /the app has 1 instance\(s\) then; the event would change nothing/],
    ['run-round.sh', ['--app', 'node-app', '--requests', '10', '--event', '2s:deploy'], /--event needs --duration/],
    ['push.sh', ['node-app', 'java-app'], /one APP \(or all\) only, got "node-app" and "java-app"/],
    ['push.sh', ['node-app', '-i'], /-i needs a value/],
    ['scale.sh', ['node-app', '-i', '2', '--bogus'], /unknown option: --bogus/],
    ['push.sh', [], /APP is required/],
    ['push.sh', ['web'], /unknown app "web"/],
    ['push.sh', ['node-app', '-i', 'x'], /-i must be a positive integer/],
    ['scale.sh', ['node-app'], /-i N is required/],
    ['scale.sh', ['node-app', '-i', '2', '--cpu', '0'], /--cpu must be a positive number of cores or none/],
    ['scale.sh', ['node-app', '-i', '2', '--cpu', '1'], /--cpu is local only/],
    ['teardown.sh', ['--everything'], /unknown option: --everything/],
    ['rounds.sh', ['--last', 'x'], /--last must be a positive integer/],
    ['collect-stats.sh', ['--app', 'node-app'], /--round is required/],
    ['collect-stats.sh', ['--app', 'node-app', '--round', '1', '--source', 'x'], /--source must be plugin, v3 or auto/],
    ['collect-logs.sh', ['--round', '1'], /--app is required/],
    ['collect-logs.sh', ['--app', 'node-app', '--round', 'x'], /--round must be a positive integer, got "x"/],
    ['collect-logs.sh', ['--app', 'node-app', '--round', '1', '--bogus'], /unknown option: --bogus/],
    ['collect-logs.sh', ['--app', 'node-app', '--round'], /--round needs a value/],
    ['collect-logs.sh', ['--app', 'node-app', '--round', '1', '--since', 'yesterday'], /--since must be an ISO 8601 time, got "yesterday"/],
    // run-round's dry-run placeholder is no time outside --dry-run.
    ['collect-logs.sh', ['--app', 'node-app', '--round', '1', '--since', '<created-at>'], /--since must be an ISO 8601 time, got "<created-at>"/],
    ['collect-stats.sh', ['--app', 'nope', '--round', '1'], /unknown app "nope"/],
    ['collect-stats.sh', ['--app', 'node-app', '--round', '1', '--interval', '0'], /--interval must be a positive integer, got "0"/],
    ['collect-stats.sh', ['--app', 'node-app', '--round', '1', '--platform', 'mars', '--dry-run'], /--platform must be local or cf, got "mars"/],
    ['rounds.sh', ['--app', 'nope'], /unknown app "nope"/],
    ['rounds.sh', ['--round', '0'], /--round must be a positive integer, got "0"/],
    ['rounds.sh', ['--dry-run'], /unknown option: --dry-run/],
    ['rounds.sh', [], /RESULTS_DATABASE_URL is not set: open the tunnel with scripts\/tunnel\.sh/],
    ['teardown.sh', ['--platform'], /--platform needs a value/],
    ['teardown.sh', ['extra'], /unexpected argument: extra/],
    ...['hash', 'least-conn', 'Round-Robin'].map((algo) => ['run-round.sh', [...RR, '--loadbalancing', algo],
      new RegExp(`^run-round: --loadbalancing must be round-robin or least-connection, got "${algo}" \\(see --help\\)$`, 'm')]),
  ];
  for (const [script, args, want] of cases) {
    await t.test(`${script} ${args.join(' ')}`, () => {
      const res = run(script, args);
      assert.equal(res.code, 1, `exit code (stderr: ${res.stderr})`);
      assert.equal(res.stdout, '');
      assert.equal(res.stderr.split('\n').filter(Boolean).length, 1, res.stderr);
      assert.match(res.stderr, want);
    });
  }
});
