// quotas.js — the Platform's limits: the org's quota as CC checks it (quota.js), and the CPU
// of an app's instances — the default that follows memory, the `cfscale.local/cpu-quota`
// override, or CF's shares. Methods of Platform (platform.js); `this` is the platform.
'use strict';

const { cfCpuShares } = require('../cgroups');
const { quotaErrors } = require('../quota');

const quotaVerbs = {
  // "M MB, N instances" of the started apps, as the quota counts them.
  quotaUse() {
    const started = Object.values(this.state.apps).filter((a) => this.desiredInstances(a) > 0);
    return `${started.reduce((s, a) => s + a.instances * a.memoryMb, 0)} MB, ${started.reduce((s, a) => s + a.instances, 0)} instances`;
  },

  // CC's quota check of `candidate`, the record an app would be saved as: CC's messages.
  quotaErrors(candidate) { return quotaErrors(this.quota, Object.values(this.state.apps), candidate); },

  // The CPU quota of an app's instances in cores; null: none.
  cpuCores(app) {
    if (app.cpuQuota === 'none') return null;
    if (typeof app.cpuQuota === 'number') return app.cpuQuota;
    if (this.cfg.cpuMode === 'shares') return null;
    return (app.memoryMb / 1024) * this.cfg.cpuPerGb;
  },

  cpuShares(app) {
    return this.cfg.cpuMode === 'shares' ? cfCpuShares(app.memoryMb) : undefined;
  },

  // The local CPU quota of an app's instances (cores, 'none', or null: the default that
  // follows memory, docs/cf-platform.md §7), applied to the running ones at once. Instance
  // counts and memory are CC's scale (cc-api/processes.js) and converge().
  async scale({ appName, cpu }) {
    const app = this.app(appName);
    if (cpu === undefined) return;
    const before = app.cpuQuota;
    app.cpuQuota = cpu;
    try {
      this.applyCpu(app);
    } catch (e) {
      app.cpuQuota = before; // a refused quota leaves the old one in force everywhere
      this.applyCpu(app);
      throw e;
    }
    this.save();
  },

  // The app's CPU quota or shares written to its running instances' cgroups.
  applyCpu(app) {
    for (const i of this.cell.list(app.name)) this.cgroups.setCpu(i.cgName, this.cpuCores(app), this.cpuShares(app));
  },

  /** "quota, period N µs" (the daemon's CFSCALE_CPU_PERIOD_US: a round records it) or "shares". */
  cpuModeText() {
    return this.cfg.cpuMode === 'quota' ? `quota, period ${this.cgroups.periodUs} µs` : this.cfg.cpuMode;
  },
};

module.exports = { quotaVerbs };
