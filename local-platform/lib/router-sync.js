// router-sync.js — keeps HAProxy in step with the apps and their instances: a reload when
// apps, routes, their load balancing or server slots change; otherwise each instance entering or leaving RUNNING
// is switched on or off through the runtime API (so client keep-alive connections live on).
// An app's backend has a server per slot (instances.js: a rolling deployment's new process
// takes free slots beside the old one, no reload); the pinned backends follow the index.
// Also maps an access-log record back to its app and instance (for the RTR line).
'use strict';

const crypto = require('node:crypto');
const { slotCount, backendName, pinBackendName, sharedServerName } = require('./haproxy-config');
const { appLoadbalancing, haproxyBalance } = require('./route-options');
const { appId } = require('./app-id');

class RouterSync {
  // apps() → app records; instances(name) → that app's instances; desired(app) → how many
  // should run (the slots follow it, never a stopped app's count).
  constructor({ router, log, apps, instances, desired = (a) => a.instances }) {
    this.router = router;
    this.log = log;
    this.apps = apps;
    this.instances = instances;
    this.desired = desired;
    this.logPort = null;
    this.key = null;
    this.serverState = new Map();
    this.slotHigh = new Map();
    // APP/SLOT → the instance a slot held last: a request's log record may come after its
    // instance was stopped and forgotten.
    this.lastInSlot = new Map();
    this.queue = Promise.resolve();
    this.next = null;
    // target()'s answers by backend and server: every access-log record asks, thousands a
    // second in a round; a sync (a change of apps, routes or instances) forgets them.
    this.targets = new Map();
  }

  model() {
    const apps = this.apps().filter((a) => a.routes.length).map((a) => {
      // An instance's server is its slot (instances.js): during a rolling deployment two
      // processes of the app share the backend, each with its own index 0, 1, …
      const insts = this.instances(a.name);
      const instances = {};
      for (const i of insts) {
        instances[slotOf(i)] = { port: i.port, ready: i.state === 'RUNNING' && i.ready !== false };
        this.lastInSlot.set(`${a.name}/${slotOf(i)}`, i);
      }
      // X-Cf-App-Instance GUID:INDEX: the instance with that index, the app's own web
      // process first (Gorouter takes the first endpoint with the index).
      const pins = {};
      for (const i of [...insts].sort((x, y) => Number(x.key !== a.name) - Number(y.key !== a.name))) {
        if (pins[i.index] === undefined) pins[i.index] = instances[slotOf(i)];
      }
      // Slots only grow while the app exists: shrinking would reload the router for nothing.
      const want = slotCount(Math.max(this.desired(a), ...insts.map((i) => slotOf(i) + 1), ...insts.map((i) => i.index + 1), 1));
      const slots = Math.max(this.slotHigh.get(a.guid) || 0, want);
      this.slotHigh.set(a.guid, slots);
      return { name: a.name, guid: a.guid, routes: a.routes, balance: haproxyBalance(appLoadbalancing(a)), slots, instances, pins };
    });
    return { apps, shared: sharedRoutes(apps), logPort: this.logPort };
  }

  async run() {
    this.targets = new Map();
    const model = this.model();
    const key = JSON.stringify([model.logPort, model.apps.map((a) => [a.name, a.guid, a.routes, a.balance, a.slots]),
      model.shared.map((g) => [g.name, g.urls, g.members, g.balance])]);
    this.shared = new Map(model.shared.map((g) => [g.name, g.members]));
    if (key !== this.key || !this.router.isRunning()) {
      await this.router.apply(model);
      this.key = key;
      this.serverState = new Map();
      for (const a of model.apps) {
        for (let i = 0; i < a.slots; i++) {
          this.serverState.set(`${a.name}/${i}`, serverOf(a.instances[i]));
          this.serverState.set(`${a.name}/pin/${i}`, serverOf(a.pins[i]));
        }
      }
      return;
    }
    for (const a of model.apps) {
      for (let i = 0; i < a.slots; i++) {
        await this.switch(`${a.name}/${i}`, a.instances[i], async (want, port) => {
          await this.router.setServer(backendName(a), `s${i}`, want, port);
          for (const g of model.shared) {
            const k2 = g.members.indexOf(a.name);
            if (k2 >= 0) await this.router.setServer(g.name, sharedServerName(k2, i), want, port);
          }
        });
        await this.switch(`${a.name}/pin/${i}`, a.pins[i], (want, port) => this.router.setServer(pinBackendName(a, i), `s${i}`, want, port));
      }
    }
  }

  // One server's state through the runtime API when it changed: apply(want, its current port).
  async switch(k, inst, apply) {
    // A slot without an instance has port 1 in the config (haproxy-config.js serverLine).
    const cur = this.serverState.get(k) || { port: 1, ready: false };
    const want = inst || null;
    const next = { port: want && want.port ? want.port : cur.port, ready: Boolean(want && want.ready) };
    if (cur.ready === next.ready && cur.port === next.port) return;
    await apply(want, cur.port);
    this.serverState.set(k, next);
  }

  // Resolves when the router reflects the state as of this call. strict: reject on error.
  sync({ strict = false } = {}) {
    // Coalesce: a run not yet begun will read the latest state anyway.
    if (this.next && !strict) return this.next;
    const done = this.queue.then(() => { this.next = null; return this.run(); });
    this.queue = done.catch((e) => this.log(`router: ${e.message}`));
    if (!strict) this.next = this.queue;
    return strict ? done : this.queue;
  }

  // {app, index, instance} of an access-log record (backend app_ID, server sSLOT; pin_ID_I, the
  // instance pinned to index I; or a shared route's backend, server mKsSLOT: member K's; ID the
  // app's app-id.js). Every access-log record asks, thousands a second in a round: answers are
  // kept by backend and server until the next sync.
  target(rec) {
    const key = `${rec.b}\u0000${rec.s}`;
    if (this.targets.has(key)) return this.targets.get(key);
    const t = this.lookup(rec);
    this.targets.set(key, t);
    return t;
  }

  lookup(rec) {
    const m = /^(?:app_(.+)|pin_(.+)_(\d+))$/.exec(rec.b || '');
    const sm = /^(?:m(\d+))?s(\d+)$/.exec(rec.s || '');
    const members = this.shared && this.shared.get(rec.b);
    const id = m && (m[1] || m[2]);
    const name = members ? (sm && sm[1] !== undefined ? members[Number(sm[1])] : members[0]) : null;
    const app = this.apps().find((a) => (name !== null ? a.name === name : id && appId(a.name) === id));
    if (!app || !sm) return app ? { app, index: null, instance: null } : null;
    const insts = this.instances(app.name);
    const instance = m && m[2] !== undefined
      ? [...insts].sort((x, y) => Number(x.key !== app.name) - Number(y.key !== app.name)).find((i) => i.index === Number(m[3]))
      : insts.find((i) => slotOf(i) === Number(sm[2])) || this.lastInSlot.get(`${app.name}/${sm[2]}`);
    return { app, index: instance ? instance.index : null, instance: instance || null };
  }

  async stop() {
    await this.queue;
    await this.router.stop();
  }
}

// The router slot of an instance (instances.js); its index where it has none (tests, older callers).
const slotOf = (i) => (i.slot === undefined ? i.index : i.slot);
const serverOf = (inst) => ({ port: inst && inst.port ? inst.port : 1, ready: Boolean(inst && inst.ready) });

// Routes mapped to more than one app (`cf map-route`): one backend per set of apps, with
// every member's server slots, as Gorouter keeps one endpoint pool per route with every
// mapped app's instances (docs/cf-platform.md §16). Members in the order of the apps (the
// route's first app sets its load balancing).
function sharedRoutes(models) {
  const byUrl = new Map();
  for (const a of models) for (const u of a.routes) byUrl.set(u, [...(byUrl.get(u) || []), a]);
  const groups = new Map();
  for (const [url, members] of byUrl) {
    if (members.length < 2) continue;
    const names = members.map((a) => a.name);
    const key = names.join('\n');
    const g = groups.get(key) || { name: `route_${crypto.createHash('sha1').update(key).digest('hex').slice(0, 12)}`, urls: [], members: names, balance: members[0].balance };
    g.urls.push(url);
    groups.set(key, g);
  }
  return [...groups.values()];
}

module.exports = { RouterSync, sharedRoutes };
