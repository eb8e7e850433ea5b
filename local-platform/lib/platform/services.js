// services.js — the Platform's service verbs (`cf create-service`, `delete-service`,
// `bind-service`, `unbind-service`) over the PostgreSQL of services.js, and which databases
// belong to the system under test. Methods of Platform (platform.js); `this` is the platform.
'use strict';

const crypto = require('node:crypto');
const { UsageError } = require('./usage-error');

const serviceVerbs = {
  async createService({ offering, plan, name }) {
    if (offering !== 'postgres') throw new UsageError(`Service offering '${offering}' not found (local offers: postgres)`);
    if (this.state.services[name]) return;
    let svc;
    try { svc = await this.pg.createService(name, plan); } catch (e) { throw new UsageError(e.message); }
    svc.bindings = {};
    this.state.services[name] = svc;
    this.save();
  },

  async deleteService({ name }) {
    const svc = this.state.services[name];
    if (!svc) return;
    const bound = Object.values(this.state.apps).filter((a) => a.services.includes(name)).map((a) => a.name);
    if (bound.length) throw new UsageError(`Cannot delete service instance ${name}: bound to ${bound.join(', ')}; unbind first`);
    await this.pg.deleteService(name);
    delete this.state.services[name];
    this.save();
  },

  bindService({ appName, name }) {
    const app = this.app(appName);
    const svc = this.state.services[name];
    if (!svc) throw new UsageError(`Service instance ${name} not found`);
    if (!app.services.includes(name)) app.services.push(name);
    recordBinding(svc, app.name);
    this.save();
  },

  unbindService({ appName, name }) {
    const app = this.app(appName);
    app.services = app.services.filter((s) => s !== name);
    if (this.state.services[name]?.bindings) delete this.state.services[name].bindings[app.name];
    this.save();
  },

  /** The databases of the services bound only to apps of the SUT's cell (the apps' own databases). */
  sutDatabases() {
    const out = new Set();
    for (const [name, svc] of Object.entries(this.state.services)) {
      const bound = Object.values(this.state.apps).filter((a) => a.services.includes(name));
      if (bound.length && bound.every((a) => this.cellOf(a) === 'sut')) out.add(svc.credentials?.name ?? name);
    }
    return out;
  },
};

// The binding of svc to the app named appName, with its guid: kept when there is one.
function recordBinding(svc, appName) {
  svc.bindings = svc.bindings || {};
  svc.bindings[appName] = svc.bindings[appName] || crypto.randomUUID();
}

module.exports = { serviceVerbs, recordBinding };
