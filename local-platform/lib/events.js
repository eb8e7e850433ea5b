// events.js — the audit events of the apps' lives (create, update, start, stop, scale,
// crash, …: docs/cf-platform.md §18), kept by the daemon in $CFSCALE_HOME/events.jsonl and
// served as CF v3 audit events; a crash is also written to `instance_events` of the
// `results-db` service when it exists (round_id NULL; the scripts attach events to rounds
// by time). As CC, an event shows its time in whole seconds and is filtered and ordered by
// its exact time (docs/cf-platform.md §9; the query is parsed in cf-api.js).
'use strict';

const crypto = require('node:crypto');
const fs = require('node:fs');
const { Client } = require('pg');

const { ORG: { guid: ORG_GUID }, SPACE: { guid: SPACE_GUID } } = require('./cc-api/presenters');

const MAX_EVENTS = 10000;
const RESULTS_SERVICE = 'results-db';
// The user every request acts as (cc-api/uaa.js USER), as CC's actor of a user's event.
const USER_ACTOR = { guid: 'c3c3a6a8-3c8b-4b6e-9d6b-000000000001', type: 'user', name: 'admin' };

// The exact time of a listed event, for ordering (never rendered: a symbol key).
const AT_MS = Symbol.for('cfscale.atMs');

const seconds = (at) => at.toISOString().replace(/\.\d+Z$/, 'Z');

class Events {
  // file: where the events are kept (one JSON line each), so they outlive a daemon restart
  // as CC's events table does.
  constructor({ log, resultsCredentials, file = null }) {
    this.log = log;
    this.resultsCredentials = resultsCredentials; // () => credentials | null
    this.file = file;
    this.list = [];
    this.load();
  }

  load() {
    if (!this.file) return;
    let text = '';
    try { text = fs.readFileSync(this.file, 'utf8'); } catch { return; }
    for (const line of text.split('\n')) {
      if (!line) continue;
      try {
        const e = JSON.parse(line);
        if (e && typeof e.atMs === 'number' && e.event && e.event.target) this.list.push(e);
      } catch { /* a torn last line: dropped */ }
    }
    if (this.list.length > MAX_EVENTS) {
      this.list = this.list.slice(-MAX_EVENTS);
      fs.writeFileSync(this.file, this.list.map((e) => `${JSON.stringify(e)}\n`).join(''));
    }
  }

  add(event, at) {
    const entry = { atMs: at.getTime(), event };
    this.list.push(entry);
    if (this.list.length > MAX_EVENTS) this.list.shift();
    if (this.file) {
      try { fs.appendFileSync(this.file, `${JSON.stringify(entry)}\n`); } catch (e) { this.log(`cannot keep event: ${e.message}`); }
    }
    return event;
  }

  // An event on app `app` (CC's app_event_repository.rb / process_event_repository.rb
  // create_event): type, actor (the user unless named), data (CC's metadata).
  app(type, app, { actor = USER_ACTOR, data = {}, at = new Date() } = {}) {
    return this.add({
      guid: crypto.randomUUID(), created_at: seconds(at), updated_at: seconds(at), type,
      actor: { ...actor }, target: { guid: app.guid, type: 'app', name: app.name }, data: data || {},
      space: { guid: SPACE_GUID }, organization: { guid: ORG_GUID },
    }, at);
  }

  // A crash of app.index: CC records audit.app.process.crash with the process as actor and
  // Diego's crash report as data, and app.crash with the app as actor
  // (app_crashed_controller.rb, docs/cf-platform.md §9).
  record(app, { index, instanceGuid = null, exitDescription, crashCount, oom, at = new Date() }) {
    const report = { instance: instanceGuid, index, reason: 'CRASHED', exit_description: exitDescription };
    const event = this.app('audit.app.process.crash', app, {
      at, actor: { guid: app.guid, type: 'process', name: 'web' },
      data: { ...report, crash_count: crashCount, crash_timestamp: at.getTime() * 1e6, version: app.version || null },
    });
    this.app('app.crash', app, { at, actor: { guid: app.guid, type: 'app', name: app.name }, data: report });
    this.writeResults(app.name, index, oom ? 'oom' : 'crash', exitDescription, at);
    return event;
  }

  // `cf restart-app-instance` by a user: CC's audit.app.process.terminate_instance
  // (app/repositories/process_event_repository.rb record_terminate: the user as actor,
  // metadata process_guid, process_type, process_index).
  terminated(app, index, at = new Date()) {
    return this.app('audit.app.process.terminate_instance', app, { at, data: { process_guid: app.guid, process_type: 'web', process_index: index } });
  }

  // The events listed, oldest first (CC's default order, by id): targets and types as lists
  // (null: any), createdAt [(atMs) => boolean].
  auditEvents({ targets = null, types = null, createdAt = [] } = {}) {
    const resources = this.list
      .filter(({ atMs, event: e }) => (!targets || targets.includes(e.target.guid)) && (!types || types.includes(e.type))
        && createdAt.every((keep) => keep(atMs)))
      .map(({ atMs, event }) => ({ ...event, [AT_MS]: atMs }));
    return {
      pagination: { total_results: resources.length, total_pages: 1, first: { href: '/v3/audit_events?page=1' }, last: { href: '/v3/audit_events?page=1' }, next: null, previous: null },
      resources,
    };
  }

  async writeResults(app, index, kind, detail, at) {
    const creds = this.resultsCredentials();
    if (!creds) return;
    const c = new Client({ connectionString: creds.uri });
    try {
      await c.connect();
      await c.query(
        'INSERT INTO instance_events (round_id, platform, app, instance_index, at, kind, detail) VALUES (NULL, $1, $2, $3, $4, $5, $6)',
        ['local', app, index, at, kind, detail],
      );
    } catch (e) {
      this.log(`cannot write instance event to ${RESULTS_SERVICE}: ${e.message}`);
    } finally {
      c.end().catch(() => {});
    }
  }
}

module.exports = { Events, RESULTS_SERVICE, USER_ACTOR, AT_MS };
