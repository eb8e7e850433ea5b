// instances.js — the Diego cell of the local platform: one process group and one cgroup
// per app instance, started under `sh -c` that enters the cgroups before it execs
// `bash -c COMMAND` (so npm → node children are inside too), stdout/stderr into the app's
// log, health checks, crash detection (OOM from the memory cgroup's oom_kill counter),
// CF-like restart backoff, and graceful stop (SIGTERM, 10 s, SIGKILL). Each instance has
// its own temp dir, $CFSCALE_HOME/instances/<app>/<index>/tmp (TMPDIR): it survives a
// restart of the same index (crash, restart-app-instance, stop/start, push) and goes with
// discardDisks (delete, scale-down of the index, down). A rolling deployment's new process
// (deployments.js) runs beside the app's web process: instances are kept per process key
// (the app's name for its web process, `APP@ID` for a deployment's), each instance with
// its CF index and a router slot of its own across the app's processes (router-sync.js),
// and a deployment's instances with disks of their own, gone with them.
'use strict';

const crypto = require('node:crypto');
const fs = require('node:fs');
const path = require('node:path');
const os = require('node:os');
const readline = require('node:readline');
const { spawn } = require('node:child_process');
const { check, isPortFree } = require('./health-check');
const { instanceEnv } = require('./cf-env');
const { startCommand } = require('./start-command');
const { appId } = require('./app-id');

const STARTUP_POLL_MS = 200;
// Diego restarts a crashed instance at once for the first 3 crashes, then waits 30 s,
// doubling up to 16 min; a run of 5 min resets the count (approximation, see README).
const IMMEDIATE_RESTARTS = 3;
const BACKOFF_BASE_MS = 30000;
const BACKOFF_MAX_MS = 960000;
const CRASH_RESET_MS = 5 * 60 * 1000;
const MB = 1024 * 1024;
// The one local cell's id in the executor's log lines.
const CELL_ID = 'local';

function sleep(ms) { return new Promise((r) => setTimeout(r, ms)); }
function killGroup(pid, sig) { try { process.kill(-pid, sig); } catch { /* gone */ } }

function backoffMs(crashCount) {
  if (crashCount <= IMMEDIATE_RESTARTS) return 0;
  return Math.min(BACKOFF_MAX_MS, BACKOFF_BASE_MS * 2 ** (crashCount - IMMEDIATE_RESTARTS - 1));
}

class Cell {
  // hooks: {appOf(key): the record a process key's instances start from (name: the app's),
  // services(), staged(key), cpuCores(app), cpuShares(app), cellEnter(app), onChange(inst)}
  constructor({ cfg, cgroups, logs, events, hooks }) {
    this.cfg = cfg;
    this.cgroups = cgroups;
    this.logs = logs;
    this.events = events;
    this.hooks = hooks;
    this.byKey = new Map(); // process key → Map(index → instance)
    this.reserved = new Set(); // ports being probed by allocatePort
  }

  appDir(appName) { return path.join(this.cfg.instancesDir, appId(appName)); }
  instanceDir(appName, index) { return path.join(this.appDir(appName), String(index)); }

  // Remove the per-instance disks (temp dirs) of app's indices >= fromIndex that have no
  // instance now; fromIndex 0 with no instance left removes the app's directory.
  discardDisks(appName, fromIndex = 0) {
    const live = this.byKey.get(appName) || new Map();
    if (fromIndex === 0 && !live.size) { fs.rmSync(this.appDir(appName), { recursive: true, force: true }); return; }
    let names = [];
    try { names = fs.readdirSync(this.appDir(appName)); } catch { return; }
    for (const n of names) {
      const i = Number(n);
      if (String(i) === n && i >= fromIndex && !live.has(i)) fs.rmSync(path.join(this.appDir(appName), n), { recursive: true, force: true });
    }
  }

  // The instances of one process key, index order.
  list(key) { return [...(this.byKey.get(key) || new Map()).values()].sort((a, b) => a.index - b.index); }
  all() { return [...this.byKey.values()].flatMap((m) => [...m.values()]); }
  // Every instance of an app, of all its processes (the router's view), slot order.
  forApp(appName) { return this.all().filter((i) => i.app === appName).sort((a, b) => a.slot - b.slot); }

  // The lowest router slot no instance of the app holds (one stopping still holds its own).
  freeSlot(appName) {
    const used = new Set(this.forApp(appName).map((i) => i.slot));
    let slot = 0;
    while (used.has(slot)) slot++;
    return slot;
  }

  // A deployment's process becomes the app's web process: its instances move to `toKey`
  // (whose own instances are gone by then), keeping their index, slot, disk and process.
  promote(fromKey, toKey) {
    const from = this.byKey.get(fromKey);
    if (!from) return;
    const to = this.byKey.get(toKey) || new Map();
    // Instances still stopping there are forgotten here; their remove() ends them.
    for (const [index, inst] of to) if (!inst.desired) to.delete(index);
    for (const inst of from.values()) {
      inst.key = toKey;
      to.set(inst.index, inst);
    }
    this.byKey.set(toKey, to);
    this.byKey.delete(fromKey);
  }

  // `cf rename`: the app's instances carry the new name (their process keys, cgroups and
  // disks keep theirs: the name inside them is only a label).
  renameApp(from, to) {
    for (const inst of this.all()) if (inst.app === from) inst.app = to;
    const web = this.byKey.get(from);
    if (!web) return;
    for (const inst of web.values()) inst.key = to;
    this.byKey.set(to, web);
    this.byKey.delete(from);
  }

  // A port of the instances' range: one per instance the org quota allows (config.js).
  // Reserved before the free-port probe, so instances started side by side never share one.
  async allocatePort() {
    const used = new Set(this.all().map((i) => i.port));
    const end = this.cfg.instancePortBase + this.cfg.quotaInstances;
    for (let p = this.cfg.instancePortBase; p < end; p++) {
      if (used.has(p) || this.reserved.has(p)) continue;
      this.reserved.add(p);
      const free = await isPortFree(p);
      this.reserved.delete(p);
      if (free && !this.all().some((i) => i.port === p)) return p;
    }
    throw new Error(`no free instance port in ${this.cfg.instancePortBase}-${end - 1}`);
  }

  // Make sure instance `index` of app exists and runs (started when absent). The instance
  // exists (STARTING) from the call on, so a second call or a scale-down sees it.
  // key: the process (the app's name: its web process).
  async ensure(app, index, key = app.name) {
    // An instance still stopping at this index is gone first: a new one takes its place.
    const stopping = this.byKey.get(key)?.get(index)?.removing;
    if (stopping) await stopping;
    let m = this.byKey.get(key);
    if (!m) { m = new Map(); this.byKey.set(key, m); }
    let inst = m.get(index);
    if (inst) return inst;
    const own = key !== app.name;
    inst = {
      app: app.name, key, index, slot: this.freeSlot(app.name), guid: crypto.randomUUID(), port: null,
      state: 'STARTING', pid: null, since: Date.now(), crashCount: 0, desired: true,
      cgName: `${appId(key)}-${index}`, usage: null, ownDisk: own,
      tmpDir: own ? path.join(this.appDir(app.name), `${key.slice(app.name.length + 1)}-${index}`, 'tmp') : path.join(this.instanceDir(app.name, index), 'tmp'),
    };
    m.set(index, inst);
    try { inst.port = await this.allocatePort(); } catch (e) { inst.portError = e.message; }
    if (inst.desired) this.spawn(inst);
    return inst;
  }

  spawn(inst) {
    const app = this.hooks.appOf(inst.key);
    if (!app || !inst.desired) return;
    inst.guid = crypto.randomUUID(); // a new container per start, as on Diego
    inst.state = 'STARTING';
    inst.since = Date.now();
    inst.runningSince = null;
    inst.unhealthy = null;
    inst.usage = null;
    inst.lastCpu = null;
    let spec;
    let cg = null;
    try {
      if (!inst.port) throw new Error(inst.portError || 'no instance port');
      spec = startCommand(app, this.hooks.staged(inst.key));
      this.killLeftovers(inst);
      fs.mkdirSync(inst.tmpDir, { recursive: true });
      cg = this.cgroups.prepare(inst.cgName, { memoryBytes: app.memoryMb * MB, cpuCores: this.hooks.cpuCores(app), cpuShares: this.hooks.cpuShares(app) });
    } catch (e) {
      this.logs.write(app.name, `APP/PROC/WEB/${inst.index}`, 'ERR', `cannot start: ${e.message}`);
      return this.crashed(inst, `APP/PROC/WEB: ${e.message}`, false);
    }
    inst.oomKillsAtStart = cg ? cg.oomKillsAtStart : 0;
    const enter = [this.cgroups.enterScript(inst.cgName), this.hooks.cellEnter?.(app)].filter(Boolean).join(' && ');
    const script = `${enter ? `${enter} || exit 125; ` : ''}cfl_cmd=$CFSCALE_START_COMMAND; unset CFSCALE_START_COMMAND; exec bash -c "$cfl_cmd"`;
    const env = { ...instanceEnv(app, inst, this.hooks.services()), CFSCALE_START_COMMAND: spec.command };
    this.logs.write(app.name, `CELL/${inst.index}`, 'OUT', `Starting app instance (index ${inst.index}) with guid ${inst.guid}`);
    const child = spawn('sh', ['-c', script], { cwd: spec.cwd, env, detached: true, stdio: ['ignore', 'pipe', 'pipe'] });
    inst.pid = child.pid;
    inst.child = child;
    const source = `APP/PROC/WEB/${inst.index}`;
    readline.createInterface({ input: child.stdout }).on('line', (l) => this.logs.write(app.name, source, 'OUT', l));
    readline.createInterface({ input: child.stderr }).on('line', (l) => this.logs.write(app.name, source, 'ERR', l));
    child.on('error', (e) => this.logs.write(app.name, source, 'ERR', `spawn failed: ${e.message}`));
    child.on('exit', (code, signal) => this.exited(inst, child, code, signal));
    this.waitHealthy(inst, child, app);
  }

  async waitHealthy(inst, child, app) {
    const hc = app.healthCheck;
    const deadline = Date.now() + hc.startTimeoutSec * 1000;
    let reason = null;
    while (inst.child === child && inst.state === 'STARTING') {
      reason = await check(hc, inst.port);
      if (inst.child !== child || inst.state !== 'STARTING') return;
      if (!reason) {
        inst.state = 'RUNNING';
        inst.since = Date.now();
        inst.runningSince = inst.since;
        this.logs.write(app.name, `CELL/${inst.index}`, 'OUT', `Container became healthy`);
        const rc = app.readinessCheck;
        inst.ready = !rc || rc.type === 'process';
        this.hooks.onChange(inst);
        if (hc.type !== 'process') this.watchLiveness(inst, child, app);
        if (!inst.ready) this.watchReadiness(inst, child, rc);
        return;
      }
      if (Date.now() > deadline) {
        inst.unhealthy = `Instance never healthy after ${hc.startTimeoutSec}s: ${reason}`;
        this.logs.write(app.name, `HEALTH/${inst.index}`, 'ERR', inst.unhealthy);
        this.terminate(inst, child);
        return;
      }
      await sleep(STARTUP_POLL_MS);
    }
  }

  watchLiveness(inst, child, app) {
    const hc = app.healthCheck;
    const timer = setInterval(async () => {
      if (inst.child !== child || inst.state !== 'RUNNING') { clearInterval(timer); return; }
      const reason = await check(hc, inst.port);
      if (reason && inst.child === child && inst.state === 'RUNNING') {
        clearInterval(timer);
        inst.unhealthy = `Instance became unhealthy: ${reason}`;
        this.logs.write(app.name, `HEALTH/${inst.index}`, 'ERR', inst.unhealthy);
        this.terminate(inst, child);
      }
    }, hc.intervalSec * 1000);
    timer.unref();
  }

  // Diego's readiness check (docs/cf-platform.md §18): the instance is routable only while
  // it passes; probed often until it first does, then every interval.
  async watchReadiness(inst, child, rc) {
    while (inst.child === child && inst.state === 'RUNNING') {
      const ready = !(await check(rc, inst.port));
      if (inst.child !== child || inst.state !== 'RUNNING') return;
      if (ready !== inst.ready) {
        inst.ready = ready;
        this.logs.write(inst.app, `CELL/${inst.index}`, 'OUT', ready ? 'Container became ready' : 'Container became not ready');
        this.hooks.onChange(inst);
      }
      await sleep(ready ? rc.intervalSec * 1000 : STARTUP_POLL_MS);
    }
  }

  // SIGTERM to the instance's main process only, as Garden signals the process it started
  // (so under `npm start` npm gets it, not node: docs/cf-platform.md §4); SIGKILL to the
  // group and the cgroup after the grace period. Resolves when the process is gone.
  async terminate(inst, child) {
    inst.state = inst.desired && inst.unhealthy ? 'CRASHED' : 'STOPPING';
    // Out of the router before the signal, so no new request reaches a stopping process.
    await this.hooks.onChange(inst);
    // The executor's line as it signals the process (docs/cf-platform.md §25): where the
    // round reads each stopped instance's SIGTERM.
    this.logs.write(inst.app, `CELL/${inst.index}`, 'OUT', `Cell ${CELL_ID} stopping instance ${inst.guid}`);
    const pid = child.pid;
    try { process.kill(pid, 'SIGTERM'); } catch { /* gone */ }
    const until = Date.now() + this.cfg.gracefulShutdownSec * 1000;
    while (child.exitCode === null && child.signalCode === null && Date.now() < until) await sleep(50);
    if (child.exitCode === null && child.signalCode === null) killGroup(pid, 'SIGKILL');
    while (child.exitCode === null && child.signalCode === null) await sleep(20);
    this.killLeftovers(inst, pid);
  }

  // Whatever survived in the group or the cgroup (a child that outlived npm, say).
  killLeftovers(inst, pgid) {
    if (pgid) killGroup(pgid, 'SIGKILL');
    for (const pid of this.cgroups.pids(inst.cgName)) { try { process.kill(pid, 'SIGKILL'); } catch { /* gone */ } }
  }

  exited(inst, child, code, signal) {
    const app = this.hooks.appOf(inst.key);
    this.killLeftovers(inst, child.pid);
    if (inst.child !== child) return;
    inst.child = null;
    inst.pid = null;
    const status = code !== null ? code : 128 + (os.constants.signals[signal] || 0);
    if (!inst.desired || !app) {
      inst.state = 'DOWN';
      this.hooks.onChange(inst);
      if (app) this.logs.write(app.name, `CELL/${inst.index}`, 'OUT', `Exit status ${status}`);
      return;
    }
    const oom = this.cgroups.oomKills(inst.cgName) > inst.oomKillsAtStart;
    const description = inst.unhealthy || `APP/PROC/WEB: Exited with status ${status}${oom ? ' (out of memory)' : ''}`;
    this.crashed(inst, description, oom);
  }

  crashed(inst, description, oom) {
    const app = this.hooks.appOf(inst.key);
    if (inst.runningSince && Date.now() - inst.runningSince > CRASH_RESET_MS) inst.crashCount = 0;
    inst.runningSince = null;
    inst.crashCount += 1;
    inst.state = 'CRASHED';
    inst.since = Date.now();
    this.hooks.onChange(inst);
    this.logs.write(app.name, `CELL/${inst.index}`, 'OUT', `Exit status: ${description}`);
    this.logs.write(app.name, 'API/0', 'OUT', `Process has crashed with type: "web" (index ${inst.index}, reason CRASHED, ${description})`);
    this.events.record(app, { index: inst.index, instanceGuid: inst.guid, exitDescription: description, crashCount: inst.crashCount, oom });
    const wait = backoffMs(inst.crashCount);
    inst.restartTimer = setTimeout(() => { inst.restartTimer = null; if (inst.desired && !inst.child) this.spawn(inst); }, wait);
  }

  // Stop and forget instance `index` of a process (key: the app's name for its web process).
  // A second call while it stops waits for the first (one SIGTERM, one grace period).
  remove(key, index) {
    const m = this.byKey.get(key);
    const inst = m && m.get(index);
    if (!inst) return Promise.resolve();
    if (!inst.removing) inst.removing = this.stopAndForget(inst);
    return inst.removing;
  }

  async stopAndForget(inst) {
    const { index } = inst;
    inst.desired = false;
    if (inst.restartTimer) clearTimeout(inst.restartTimer);
    if (inst.child) await this.terminate(inst, inst.child);
    inst.state = 'DOWN';
    // Promoted meanwhile (deployments.js): it is forgotten where it is now.
    const now = this.byKey.get(inst.key);
    if (now && now.get(index) === inst) now.delete(index);
    if (now && !now.size) this.byKey.delete(inst.key);
    this.hooks.onChange(inst);
    this.cgroups.remove(inst.cgName);
    if (inst.ownDisk) fs.rmSync(path.dirname(inst.tmpDir), { recursive: true, force: true });
  }

  // Every instance of a process key.
  async removeApp(key) {
    await Promise.all(this.list(key).map((i) => this.remove(key, i.index)));
  }

  // Restart one instance in place (restart-app-instance): a fresh container, same index.
  async restartInstance(appName, index) {
    const inst = (this.byKey.get(appName) || new Map()).get(index);
    if (!inst) throw new Error(`instance ${index} of ${appName} does not exist`);
    inst.desired = false;
    if (inst.restartTimer) clearTimeout(inst.restartTimer);
    if (inst.child) await this.terminate(inst, inst.child);
    inst.desired = true;
    inst.crashCount = 0;
    this.spawn(inst);
  }

  // Wait until the given instances run; fails on timeout or when all keep crashing.
  async waitRunning(appName, indices, timeoutMs) {
    const until = Date.now() + timeoutMs;
    for (;;) {
      const insts = indices.map((i) => (this.byKey.get(appName) || new Map()).get(i)).filter(Boolean);
      if (insts.length === indices.length && insts.every((i) => i.state === 'RUNNING')) return;
      if (insts.length && insts.every((i) => i.crashCount >= IMMEDIATE_RESTARTS)) {
        throw new Error(`Start unsuccessful: ${appName} crashed ${IMMEDIATE_RESTARTS} times in a row (cf logs ${appName} --recent)`);
      }
      if (Date.now() > until) {
        const states = insts.map((i) => `#${i.index} ${i.state}`).join(', ');
        throw new Error(`Start app timeout: ${appName} instances not all running after ${Math.round(timeoutMs / 1000)}s (${states})`);
      }
      await sleep(100);
    }
  }
}

module.exports = { Cell, backoffMs };
