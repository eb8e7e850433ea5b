// jobs.js — CC's asynchronous jobs (pollable_job_model; job_presenter.rb): an operation
// answered 202 with a Location of /v3/jobs/GUID, polled by the CLI until COMPLETE or
// FAILED; a failed job carries CC's error objects in `errors`.
'use strict';

const crypto = require('node:crypto');
const { CcError } = require('./errors');

// Finished jobs are kept this long for the CLI's polls, then dropped.
const KEEP_MS = 10 * 60 * 1000;
// The 202 waits this long for the job to end. The cf CLI GETs a job at once, then every 3 s
// until it ends (cli api/cloudcontroller/ccv3/job.go PollJobForState; util/configv3/defaults.go
// DefaultPollingInterval): a job that ends in this time is COMPLETE at the first GET, as
// when CC's workers are quick, and the CLI does not sleep; a longer one is still PROCESSING.
const ANSWER_WAIT_MS = 1000;

class Jobs {
  constructor(base, log) {
    this.base = base;
    this.log = log;
    this.jobs = new Map();
  }

  // Run fn in the background; resolves [202, null, {Location}] for the handler to answer once
  // the job has ended or ANSWER_WAIT_MS have passed.
  async start(operation, fn) {
    const now = new Date().toISOString();
    const job = { guid: crypto.randomUUID(), operation, state: 'PROCESSING', created_at: now, updated_at: now, errors: [], warnings: [] };
    this.jobs.set(job.guid, job);
    const ended = Promise.resolve().then(fn).then(() => { job.state = 'COMPLETE'; }, (e) => {
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
    let timer;
    await Promise.race([ended, new Promise((resolve) => { timer = setTimeout(resolve, ANSWER_WAIT_MS); })]);
    clearTimeout(timer);
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
