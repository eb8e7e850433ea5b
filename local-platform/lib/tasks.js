// tasks.js — Diego's tasks on the local platform (`cf run-task`, cloud_controller_ng
// app/actions/task_create.rb, task_cancel.rb): a command run once from the app's current
// droplet, with the app's environment (no port: a task is not routed), in a memory cgroup
// of its own, in the app's cell; its output in the app's log as APP/TASK/NAME/0. RUNNING
// once started, then SUCCEEDED, or FAILED with Diego's reason ("Exited with status N", a
// cancel's "task was cancelled"). Records are kept in state.json; a task a previous daemon
// was running is FAILED at boot.
'use strict';

const crypto = require('node:crypto');
const fs = require('node:fs');
const path = require('node:path');
const readline = require('node:readline');
const { spawn } = require('node:child_process');
const { instanceEnv } = require('./cf-env');
const { appId } = require('./app-id');

// CC's defaults for a task's memory and disk (config default_app_memory, default_app_disk_in_mb).
const DEFAULT_MEMORY_MB = 1024;
const DEFAULT_DISK_MB = 1024;
const MB = 1024 * 1024;

class Tasks {
  constructor(platform) {
    this.platform = platform;
    this.children = new Map(); // task guid → child process
  }

  get records() { return this.platform.state.tasks; }

  start() {
    for (const t of Object.values(this.records)) {
      if (t.state === 'RUNNING' || t.state === 'PENDING' || t.state === 'CANCELING') this.finish(t, 'FAILED', 'the local platform restarted');
    }
  }

  /** The app's tasks, in the order they were made. */
  forApp(appGuid) { return Object.values(this.records).filter((t) => t.appGuid === appGuid).sort((a, b) => a.sequenceId - b.sequenceId); }

  /** A task of app from a validated message {name, command, memoryMb, diskMb}; it starts at once. */
  create(app, msg) {
    const sequenceId = this.forApp(app.guid).reduce((m, t) => Math.max(m, t.sequenceId), 0) + 1;
    const now = new Date().toISOString();
    const t = {
      guid: crypto.randomUUID(), appGuid: app.guid, sequenceId, name: msg.name || crypto.randomBytes(4).toString('hex'),
      command: msg.command, state: 'RUNNING', memoryMb: msg.memoryMb || DEFAULT_MEMORY_MB, diskMb: msg.diskMb || DEFAULT_DISK_MB,
      dropletGuid: app.dropletGuid, failureReason: null, createdAt: now, updatedAt: now,
    };
    this.records[t.guid] = t;
    this.platform.save();
    this.run(app, t);
    return t;
  }

  run(app, t) {
    const { platform } = this;
    const source = `APP/TASK/${t.name}/0`;
    const cg = `${appId(app.name)}-task-${t.sequenceId}`;
    const tmpDir = path.join(platform.cfg.instancesDir, appId(app.name), `task-${t.sequenceId}`, 'tmp');
    let child;
    try {
      fs.mkdirSync(tmpDir, { recursive: true });
      platform.cgroups.prepare(cg, { memoryBytes: t.memoryMb * MB, cpuCores: platform.cpuCores(app), cpuShares: platform.cpuShares(app) });
      const enter = [platform.cgroups.enterScript(cg), platform.cells.enterScript(platform.cellOf(app))].filter(Boolean).join(' && ');
      const env = { ...instanceEnv(app, { index: 0, guid: t.guid, port: 0, tmpDir }, platform.state.services), CFSCALE_TASK_COMMAND: t.command };
      // No port mapping: Diego's run step sets these empty (docs/cf-platform.md §28).
      for (const k of ['PORT', 'VCAP_APP_PORT']) delete env[k];
      Object.assign(env, { CF_INSTANCE_PORT: '', CF_INSTANCE_ADDR: '', CF_INSTANCE_PORTS: '[]' });
      const cwd = fs.statSync(app.path).isFile() ? path.dirname(app.path) : app.path;
      const script = `${enter ? `${enter} || exit 125; ` : ''}c=$CFSCALE_TASK_COMMAND; unset CFSCALE_TASK_COMMAND; exec bash -c "$c"`;
      child = spawn('sh', ['-c', script], { cwd, env, detached: true, stdio: ['ignore', 'pipe', 'pipe'] });
    } catch (e) {
      platform.logs.write(app.name, source, 'ERR', `cannot start: ${e.message}`);
      this.finish(t, 'FAILED', `cannot start: ${e.message}`);
      return;
    }
    this.children.set(t.guid, child);
    platform.logs.write(app.name, `CELL/0`, 'OUT', `Cell local creating container for instance ${t.guid}`);
    readline.createInterface({ input: child.stdout }).on('line', (l) => platform.logs.write(app.name, source, 'OUT', l));
    readline.createInterface({ input: child.stderr }).on('line', (l) => platform.logs.write(app.name, source, 'ERR', l));
    child.on('error', (e) => platform.logs.write(app.name, source, 'ERR', `spawn failed: ${e.message}`));
    child.on('exit', (code, signal) => {
      this.children.delete(t.guid);
      for (const pid of platform.cgroups.pids(cg)) { try { process.kill(pid, 'SIGKILL'); } catch { /* gone */ } }
      platform.cgroups.remove(cg);
      fs.rmSync(path.dirname(tmpDir), { recursive: true, force: true });
      if (t.state === 'CANCELING') this.finish(t, 'FAILED', 'task was cancelled');
      else if (code === 0) this.finish(t, 'SUCCEEDED', null);
      else this.finish(t, 'FAILED', `APP/TASK/${t.name}: Exited with status ${code !== null ? code : `128 + ${signal}`}`);
    });
  }

  finish(t, state, reason) {
    Object.assign(t, { state, failureReason: reason, updatedAt: new Date().toISOString() });
    this.platform.save();
  }

  /** CC's TaskCancel: a task still running is signalled (SIGTERM, then SIGKILL after the grace). */
  cancel(t) {
    if (t.state !== 'RUNNING' && t.state !== 'PENDING') throw new Error(`Task state is ${t.state} and therefore cannot be canceled`);
    t.state = 'CANCELING';
    t.updatedAt = new Date().toISOString();
    const child = this.children.get(t.guid);
    if (!child) return this.finish(t, 'FAILED', 'task was cancelled');
    try { process.kill(-child.pid, 'SIGTERM'); } catch { /* gone */ }
    setTimeout(() => { try { process.kill(-child.pid, 'SIGKILL'); } catch { /* gone */ } }, this.platform.cfg.gracefulShutdownSec * 1000).unref();
    return t;
  }

  /** Every running task stopped (shutdown). */
  stopAll() {
    for (const child of this.children.values()) { try { process.kill(-child.pid, 'SIGKILL'); } catch { /* gone */ } }
  }
}

module.exports = { Tasks };
