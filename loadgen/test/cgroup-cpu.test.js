'use strict';
// The loadgen's own CPU starvation: cpu.stat found through /proc/self/cgroup on cgroup v1
// and v2 (real files under a temp root), parsed in both formats, and the run's delta.
const test = require('node:test');
const assert = require('node:assert');
const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');
const { cpuStatPaths, parseCpuStat, openCpuStat, throttlingDelta } = require('../lib/cgroup-cpu');
const { Health } = require('../lib/health');

const V1 = 'nr_periods 200\nnr_throttled 30\nthrottled_time 4500000000\n';
const V2 = 'usage_usec 9\nuser_usec 5\nsystem_usec 4\nnr_periods 100\nnr_throttled 7\nthrottled_usec 350000\n';

test('cpu.stat paths: v1 cpu controller first, then v2, then the mount roots', () => {
  assert.deepStrictEqual(cpuStatPaths('4:memory:/a\n2:cpu,cpuacct:/garden/abc\n0::/\n', '/r'), [
    '/r/cpu,cpuacct/garden/abc/cpu.stat', '/r/cpu/garden/abc/cpu.stat', '/r/cpu.stat',
    '/r/cpu,cpuacct/cpu.stat', '/r/cpu/cpu.stat']);
  assert.deepStrictEqual(cpuStatPaths('0::/system.slice/x.scope\n', '/r'), ['/r/system.slice/x.scope/cpu.stat', '/r/cpu.stat']);
});

test('cpu.stat parsed in both formats (v1 ns, v2 µs); without throttling fields null', () => {
  assert.deepStrictEqual(parseCpuStat(V1), { periods: 200, throttledPeriods: 30, throttledUs: 4500000 });
  assert.deepStrictEqual(parseCpuStat(V2), { periods: 100, throttledPeriods: 7, throttledUs: 350000 });
  assert.strictEqual(parseCpuStat('usage_usec 9\n'), null);
});

test('a starved loadgen: the run records the throttling delta of its own cgroup', (t) => {
  const root = fs.mkdtempSync(path.join(os.tmpdir(), 'cfscale-cgroup-'));
  t.after(() => fs.rmSync(root, { recursive: true, force: true }));
  fs.mkdirSync(path.join(root, 'app', 'inst'), { recursive: true });
  const stat = path.join(root, 'app', 'inst', 'cpu.stat');
  fs.writeFileSync(stat, V2);
  fs.writeFileSync(path.join(root, 'cgroup'), '0::/app/inst\n');
  const reader = openCpuStat(path.join(root, 'cgroup'), root);
  assert.strictEqual(reader.path, stat);
  const health = new Health({ cpuStat: reader }).start();
  fs.writeFileSync(stat, 'nr_periods 160\nnr_throttled 37\nthrottled_usec 1350000\n');
  const h = health.stop();
  assert.deepStrictEqual([h.cpu_periods, h.cpu_throttled_periods, h.cpu_throttled_ms], [60, 30, 1000]);
});

test('no visible cpu.stat: the columns stay null', () => {
  assert.strictEqual(openCpuStat('/nonexistent/cgroup'), null);
  const h = new Health({ cpuStat: null }).start().stop();
  assert.deepStrictEqual([h.cpu_periods, h.cpu_throttled_periods, h.cpu_throttled_ms], [null, null, null]);
  assert.deepStrictEqual(throttlingDelta(null, { periods: 1, throttledPeriods: 0, throttledUs: 0 }).cpu_periods, null);
});
