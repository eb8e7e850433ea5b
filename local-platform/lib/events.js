// events.js — crash events of instances, kept by the daemon and served as CF v3 audit
// events (`audit.app.process.crash`), and written to `instance_events` of the `results-db`
// service when it exists (round_id NULL; the scripts attach events to rounds by time).
// As CC, an event shows its time in whole seconds and is filtered by its exact time
// (docs/cf-platform.md §9; the query is parsed in cf-api.js).
'use strict';

const crypto = require('node:crypto');
const { Client } = require('pg');

const { ORG: { guid: ORG_GUID }, SPACE: { guid: SPACE_GUID } } = require('./cc-api/presenters');

const MAX_EVENTS = 10000;
const RESULTS_SERVICE = 'results-db';

class Events {
  constructor({ log, resultsCredentials }) {
    this.log = log;
    this.resultsCredentials = resultsCredentials; // () => credentials | null
    this.list = [];
  }

  // A crash of app.index: {app, index, exitDescription, crashCount, oom, at}
  record(app, { index, exitDescription, crashCount, oom, at = new Date() }) {
    const event = {
      guid: crypto.randomUUID(),
      created_at: at.toISOString().replace(/\.\d+Z$/, 'Z'),
      updated_at: at.toISOString().replace(/\.\d+Z$/, 'Z'),
      type: 'audit.app.process.crash',
      actor: { guid: app.guid, type: 'process', name: 'web' },
      target: { guid: app.guid, type: 'app', name: app.name },
      data: {
        index,
        reason: 'CRASHED',
        exit_description: exitDescription,
        crash_count: crashCount,
        crash_timestamp: at.getTime() * 1e6,
      },
      space: { guid: SPACE_GUID },
      organization: { guid: ORG_GUID },
    };
    this.list.push({ atMs: at.getTime(), event });
    if (this.list.length > MAX_EVENTS) this.list.shift();
    this.writeResults(app.name, index, oom ? 'oom' : 'crash', exitDescription, at);
    return event;
  }

  // `cf restart-app-instance` by a user: CC's audit.app.process.terminate_instance
  // (app/repositories/process_event_repository.rb record_terminate: the user as actor,
  // metadata process_guid, process_type, process_index). user: {guid, name}.
  terminated(app, index, user, at = new Date()) {
    const time = at.toISOString().replace(/\.\d+Z$/, 'Z');
    const event = {
      guid: crypto.randomUUID(), created_at: time, updated_at: time, type: 'audit.app.process.terminate_instance',
      actor: { guid: user.guid, type: 'user', name: user.name },
      target: { guid: app.guid, type: 'app', name: app.name },
      data: { process_guid: app.guid, process_type: 'web', process_index: index },
      space: { guid: SPACE_GUID }, organization: { guid: ORG_GUID },
    };
    this.list.push({ atMs: at.getTime(), event });
    if (this.list.length > MAX_EVENTS) this.list.shift();
    return event;
  }

  // The events listed: targets and types as lists (null: any), createdAt [(atMs) => boolean].
  auditEvents({ targets = null, types = null, createdAt = [] } = {}) {
    const resources = this.list
      .filter(({ atMs, event: e }) => (!targets || targets.includes(e.target.guid)) && (!types || types.includes(e.type))
        && createdAt.every((keep) => keep(atMs)))
      .map(({ event }) => event);
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

module.exports = { Events, RESULTS_SERVICE };
