// jobs.js — CC's asynchronous jobs (pollable_job_model; job_presenter.rb): an operation
// answered 202 with a Location of /v3/jobs/GUID, polled by the CLI until COMPLETE or
// FAILED; a failed job carries CC's error objects in `errors`.
'use strict';

const crypto = require('node:crypto');
const { CcError } = require('./errors');

// Finished jobs are kept this long for the CLI's polls, then dropped.
const KEEP_MS = 10 * 60 * 1000;

class Jobs {
  constructor(base, log) {
    this.base = base;
    this.log = log;
    this.jobs = new Map();
  }

  // Run fn in the background; returns [202, null, {Location}] for the handler to answer.
  start(operation, fn) {
    const now = new Date().toISOString();
    const job = { guid: crypto.randomUUID(), operation, state: 'PROCESSING', created_at: now, updated_at: now, errors: [], warnings: [] };
    this.jobs.set(job.guid, job);
    Promise.resolve().then(fn).then(() => { job.state = 'COMPLETE'; }, (e) => {
      job.state = 'FAILED';
      if (e instanceof CcError) job.errors = e.toJSON().errors;
      else {
        this.log(`cc-api: job ${operation} failed: ${e.stack || e.message}`);
        job.errors = [{ detail: e.message, title: 'CF-ServerError', code: 10001 }];
      }
    }).finally(() => {
      job.updated_at = new Date().toISOString();
      setTimeout(() => this.jobs.delete(job.guid), KEEP_MS).unref();
    });
    return [202, null, { Location: `${this.base}/v3/jobs/${job.guid}` }];
  }

  present(guid) {
    const job = this.jobs.get(guid);
    if (!job) return null;
    return {
      guid: job.guid, created_at: job.created_at, updated_at: job.updated_at,
      operation: job.operation, state: job.state,
      errors: job.state === 'COMPLETE' ? [] : job.errors, warnings: job.warnings,
      links: { self: { href: `${this.base}/v3/jobs/${job.guid}` } },
    };
  }
}

module.exports = { Jobs };
