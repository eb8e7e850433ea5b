'use strict';
// app-steps.js — what round.js does to the app itself around the round, each from the
// plan (round-plan.js): --loadbalancing on its route, seeding its ads, prewarming its
// instances, and one request to every instance (the timings clear before the round, their
// flush after it). Under --dry-run each prints what it would run.
//
// setRouteLoadbalancing(plan), seedApp(plan), prewarmInstances(plan), prewarmUnquoted(plan): see each;
// eachInstance(plan, method, urlPath, opts) → Promise<boolean>.
const { run } = require('../ops/exec');
const { pinnedRequest, instanceRequest, printedRequest } = require('../ops/pinned-request');
const { sleep } = require('../ops/sleep');
const { CliError } = require('../../lib/arg-table');
const { CPU_NONE } = require('../../lib/cpu-quota');
const { setCpuQuota } = require('../ops/apps');

const LOADGEN_CLI = 'loadgen/bin/loadgen.js';
const PREWARM_PARALLEL = 8;

// The app timings flush answered 503 (the instance's results database connection failed):
// asked again after this long, doubling up to the maximum, for results-db.js outageToleranceMs().
const FLUSH_RETRY_MIN_MS = 1000;
const FLUSH_RETRY_MAX_MS = 5000;

/** --loadbalancing on the app's route: a per-route option of Gorouter (docs/cf-platform.md §11). */
async function setRouteLoadbalancing(plan) {
  const { p, o } = plan;
  if (!o.loadbalancing) return;
  let host = `<${o.app}-host>`;
  let domain = `<${o.app}-domain>`;
  if (plan.route) {
    host = plan.route.host;
    domain = plan.route.url.split('/')[0];
    if (domain.startsWith(`${host}.`)) domain = domain.slice(host.length + 1);
  }
  await p.cfRun('update-route', domain, '--hostname', host, '-o', `loadbalancing=${o.loadbalancing}`);
}

/**
 * The app holds --seed-ads ads before the round is created, seeded with the loadgen's own
 * code: not inside the start lead, which the loadgens need whole to start on time. A failure
 * ends the round: CliError, exit 2.
 */
async function seedApp(plan) {
  const { p, o } = plan;
  if (!(Number(o.seedAds) > 0)) return;
  const args = ['node', LOADGEN_CLI, '--url', plan.baseUrl, '--seed', o.seedAds, '--seed-only'];
  if (plan.hostHeader) args.push('--host', plan.hostHeader);
  if (plan.insecure) args.push('--insecure');
  if ((await p.run(args)) !== 0) throw new CliError(`${p.cli.name}: could not seed ${o.seedAds} ads into ${o.app}`, 2);
}

/**
 * Whether the prewarm runs without the round's CPU quota: locally, under a quota of cores. On
 * CF an instance's CPU is a work-conserving share (docs/cf-platform.md §7), so a JIT warms on
 * what the cell has spare, not on a 0.2-core ration, and a prewarm of thousands of requests
 * takes seconds instead of a minute. The quota is applied live after it (the local Cloud
 * Controller writes it to the running instances' cgroups, local-platform/README.md). It does
 * not narrow Java's spread between restarts (bench/rounds/README.md).
 */
const prewarmUnquoted = ({ p, o }) => p.name === 'local' && Number(o.prewarm) > 0 && typeof o.cpu === 'number';

/**
 * --prewarm requests to each instance, pinned (X-Cf-App-Instance), with the loadgen CLI:
 * reads among the seeded ads, else /health. Before the timings are cleared; without the
 * quota when prewarmUnquoted (it is set again even when the prewarm fails).
 */
async function prewarmInstances(plan) {
  const { p, o } = plan;
  if (!(Number(o.prewarm) > 0)) return;
  if (!prewarmUnquoted(plan)) {
    await prewarmEach(plan);
    return;
  }
  await setCpuQuota(p, plan.guid, CPU_NONE);
  try {
    await prewarmEach(plan);
  } finally {
    await setCpuQuota(p, plan.guid, o.cpu);
  }
}

async function prewarmEach(plan) {
  const { p, o } = plan;
  for (let i = 0; i < Number(o.instances); i++) {
    const args = ['node', LOADGEN_CLI, '--requests', o.prewarm, '--parallel', String(PREWARM_PARALLEL), '--no-progress',
      '--max-error-rate', '0', '-H', `X-Cf-App-Instance: ${plan.guid}:${i}`];
    if (plan.hostHeader) args.push('--host', plan.hostHeader);
    if (plan.insecure) args.push('--insecure');
    if (Number(o.seedAds) > 0) args.push('--url', plan.baseUrl, '--scenario', 'read', '--seed', o.seedAds);
    else args.push('--url', `${plan.baseUrl}/health`);
    if (p.dryRun) p.printCmd(args);
    else if ((await run(args, { stdout: 'ignore' })) !== 0) p.cli.die(`prewarming ${o.app} instance ${i} failed`);
  }
}

/**
 * One request per app instance, in parallel (printed in order under --dry-run), each
 * output line on stderr prefixed APP/INDEX. Resolves false when any request failed.
 * retryUnavailableForMs: an instance that answers 503 is asked again, with backoff, for
 * this long (the timings flush: the app keeps its buffer until a flush has worked).
 * retryUnknownInstance: Gorouter's 400 for an instance it does not know yet is retried
 * (pinned-request.js): the clear follows a scale-up. instances: how many there are now (the
 * round's --instances unless its events changed it). answer(index, line): takes the answers'
 * lines instead of stderr.
 */
async function eachInstance(plan, method, urlPath, { retryUnknownInstance = false, retryUnavailableForMs = 0, instances = null, answer = null } = {}) {
  const { p, o } = plan;
  const n = instances ?? Number(o.instances);
  const reqOf = (i) => instanceRequest(plan.baseUrl, plan.hostHeader, plan.guid, i, method, urlPath, { insecure: plan.insecure });
  if (p.dryRun) {
    for (let i = 0; i < n; i++) p.printCmd(printedRequest(reqOf(i), { auth: true }));
    return true;
  }
  const said = Array.from({ length: n }, () => new Set()); // a line repeated by a retry is shown once
  const onLine = (i) => (line) => {
    if (answer) answer(i, line);
    else if (!said[i].has(line)) process.stderr.write(`${o.app}/${i}: ${line}\n`);
    said[i].add(line);
  };
  const t0 = Date.now();
  let left = Array.from({ length: n }, (_, i) => i);
  for (let delayMs = FLUSH_RETRY_MIN_MS; ; delayMs = Math.min(2 * delayMs, FLUSH_RETRY_MAX_MS)) {
    const res = await Promise.all(left.map((i) => pinnedRequest(reqOf(i), { token: plan.controlToken, retryUnknownInstance, onLine: onLine(i) })));
    if (res.some((x) => x.code !== 0 && x.status !== 503)) return false;
    left = left.filter((_, k) => res[k].code !== 0);
    if (left.length === 0) return true;
    if (Date.now() + delayMs - t0 > retryUnavailableForMs) return false;
    await sleep(delayMs);
  }
}

/**
 * Records an app's full timing buffer did not keep (GET /timings; the flush forgets the count):
 * one line, as the server timings then cover only the round's first requests. Read before the
 * flush; an instance that does not answer is the flush's to report.
 */
async function timingsNotKept(plan, instances) {
  const notKept = [];
  const answer = (i, line) => {
    const m = /^dropped ([1-9][0-9]*)$/.exec(line);
    if (m) notKept.push(`${plan.o.app}/${i}: ${m[1]}`);
  };
  await eachInstance(plan, 'GET', '/timings', { instances, answer });
  if (notKept.length) {
    plan.p.cli.log(`server timings not kept, the app's buffer full (TIMINGS_CAPACITY): ${notKept.join(', ')}; `
      + "they cover the round's first requests only");
  }
}

module.exports = { setRouteLoadbalancing, seedApp, prewarmInstances, prewarmUnquoted, eachInstance, timingsNotKept };
