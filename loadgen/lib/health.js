'use strict';
// The generator's own health during a round, stored in loadgen_runs so the report
// can tell when the load generator rather than the target was the bottleneck: CPU
// time (process.cpuUsage), event-loop delay p99/max (monitorEventLoopDelay), the
// largest RSS seen (sampled every second), and the CPU its cgroup wanted but was not
// given (cpu.stat throttling, cgroup-cpu.js; null when not visible).

const { monitorEventLoopDelay } = require('node:perf_hooks');
const { openCpuStat, throttlingDelta } = require('./cgroup-cpu');

const EVENT_LOOP_RESOLUTION_MS = 10;
const RSS_SAMPLE_MS = 1000;

class Health {
  /** cpuStat: a cgroup-cpu.js reader (tests); else this process's own, when visible. */
  constructor({ cpuStat = openCpuStat() } = {}) {
    this.cpuStat = cpuStat;
  }

  start() {
    this.throttleStart = this.cpuStat ? this.cpuStat.read() : null;
    this.cpu = process.cpuUsage();
    this.loop = monitorEventLoopDelay({ resolution: EVENT_LOOP_RESOLUTION_MS });
    this.loop.enable();
    this.rssMax = process.memoryUsage.rss();
    this.timer = setInterval(() => {
      const rss = process.memoryUsage.rss();
      if (rss > this.rssMax) this.rssMax = rss;
    }, RSS_SAMPLE_MS);
    this.timer.unref();
    return this;
  }

  /** Ends the measurement; the figures as loadgen_runs columns. */
  stop() {
    clearInterval(this.timer);
    this.loop.disable();
    const cpu = process.cpuUsage(this.cpu);
    const rss = process.memoryUsage.rss();
    return {
      cpu_user_ms: Math.round(cpu.user / 1000),
      cpu_system_ms: Math.round(cpu.system / 1000),
      eloop_delay_p99_us: Math.round(this.loop.percentile(99) / 1000),
      eloop_delay_max_us: Math.round(this.loop.max / 1000),
      rss_max_bytes: Math.max(this.rssMax, rss),
      ...throttlingDelta(this.throttleStart, this.cpuStat ? this.cpuStat.read() : null),
    };
  }
}

module.exports = { Health };
