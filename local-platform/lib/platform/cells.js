// cells.js — the Platform's CPU cells (../cells.js): which cell an app runs in, `cfl cells`,
// the shield while it is up, and the cells' line of `cfl status`. Methods of Platform
// (platform.js); `this` is the platform.
'use strict';

const { UsageError } = require('./usage-error');

const cellVerbs = {
  /** The cell an app's instances run in: the harness's for CFSCALE_HARNESS_APPS, else the SUT's. */
  cellOf(app) { return this.cfg.harnessApps.includes(app.name) ? 'harness' : 'sut'; },

  /** While the shield is up, what started in the root cpuset since joins it; lowered once its time is up. */
  keepShield() {
    if (Date.now() < this.shieldUntil) { this.cells.raiseShield(); return; }
    this.shieldUntil = null;
    this.log(`shield lowered (its time was up): ${this.cells.lowerShield()} processes back on every CPU`);
  },

  /**
   * `cfl cells [--join PID] [--shield SECONDS]`: the split as JSON {sut_cpus, harness_cpus, app_db,
   * shield} (null: none); --join moves PID to the harness's cell; --shield raises the shield for
   * SECONDS (cells.js), 0 lowers it.
   */
  cellsVerb({ join, shield }) {
    if (shield !== undefined && this.cells.available && this.cfg.shield === 'on') {
      if (shield > 0) {
        const moved = this.cells.raiseShield();
        if (!this.shieldUntil) this.log(`shield raised for ${shield} s: ${moved} processes onto CPU ${this.cells.describe().harness_cpus}`);
        this.shieldUntil = Date.now() + shield * 1000;
      } else if (this.shieldUntil) {
        this.shieldUntil = null;
        this.log(`shield lowered: ${this.cells.lowerShield()} processes back on every CPU`);
      }
    }
    // Without cells there is nothing to join: the answer (null) says so.
    if (join !== undefined && this.cells.available && !this.cells.join('harness', join)) throw new UsageError(`cannot move pid ${join} into the harness's cell`);
    const d = this.cells.describe();
    return JSON.stringify(d && { ...d, app_db: this.cfg.appDbCell, shield: Boolean(this.shieldUntil) });
  },

  cellsText() {
    const d = this.cells.describe();
    if (!d) return 'OFF: the system under test shares every CPU with the harness';
    return `system under test on CPU ${d.sut_cpus} (apps; ${this.cfg.appDbCell === 'sut' ? 'their databases' : 'not their databases'}), `
      + `harness on CPU ${d.harness_cpus} (${this.cfg.harnessApps.join(', ')}, router, PostgreSQL, daemon, run-round)`;
  },
};

module.exports = { cellVerbs };
