'use strict';
// queue-in-memory.js — preloaded by efficiency.sh --queue-in-memory (node -r) into the
// "loadgen+persist-memq" runs: the sink's push() queues a batch closed behind a COPY in flight
// in memory (up to 8 MB; past that to the spool) instead of writing it to the spool, so that
// what spooling costs a generator shows beside it in one run.

const { Sink } = require('../lib/sink');

const MAX_QUEUED_BYTES = 8 * 1024 * 1024;

Sink.prototype.push = function push(buf, release, info) {
  if (release) this.releases.set(buf, release);
  if (info !== undefined) this.info.set(buf, info);
  if (buf.length === 0) { this.done(buf); return; }
  if (this.queuedBytes + buf.length > MAX_QUEUED_BYTES || this.retryTimer !== null) this.toSpool(buf);
  else {
    this.queue.push(buf);
    this.queuedBytes += buf.length;
  }
  this.kick();
};
