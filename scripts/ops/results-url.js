// results-url.js — the results database for the report and the experiment runner: where it
// is (lib/results-db-url.js resultsUrl) and a client on it as the report reads it.
'use strict';
const { connect: openResultsDb } = require('./results-db.js');
const { REPO_ROOT, localCfEnv, resultsUrl } = require('../../lib/results-db-url.js');

/** A client on the results database (results-db.js connect), as application cfscale-report, numbers as numbers. */
const connect = (url) => openResultsDb(url, 'report', { numbers: true });

module.exports = { resultsUrl, connect, localCfEnv, REPO_ROOT };
