'use strict';
// http-error.js — an expected failure with its status and the one-line reason sent to the client.

class HttpError extends Error {
  /**
   * @param {number} status HTTP status
   * @param {string} reason the exact body line (without "\n"), from contract/README.md
   * @param {object} [headers] extra response headers (Allow, Retry-After, Connection)
   */
  constructor(status, reason, headers) {
    super(reason);
    this.status = status;
    this.reason = reason;
    this.headers = headers;
  }
}

const RETRY_AFTER_1S = Object.freeze({ 'Retry-After': '1' });

/** The 503 of the app database (contract: "Database trouble"); cause is logged, never sent. */
function databaseUnavailable(cause) {
  const err = new HttpError(503, 'database unavailable', RETRY_AFTER_1S);
  err.cause = cause;
  return err;
}

function resultsDatabaseUnavailable(cause) {
  const err = new HttpError(503, 'results database unavailable');
  err.cause = cause;
  return err;
}

/** A flush for a round that is neither running nor just finished for this app: nothing written. */
function roundRefused() {
  return new HttpError(409, 'round is not running for this app');
}

module.exports = { HttpError, databaseUnavailable, resultsDatabaseUnavailable, roundRefused };
