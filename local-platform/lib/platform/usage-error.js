// usage-error.js — the error of a verb the caller got wrong (an unknown app, a bad count):
// the daemon answers it as a usage error, the Cloud Controller as CC's 4xx.
'use strict';

class UsageError extends Error {}

module.exports = { UsageError };
