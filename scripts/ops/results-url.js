// results-url.js — the results database for the report and the experiment runner: where it
// is (lib/results-db-url.js resultsUrl) and a client on it as the report reads it.
'use strict';
const pg = require('pg');
const { connect: openResultsDb } = require('./results-db.js');
const { REPO_ROOT, localCfEnv, resultsUrl } = require('../../lib/results-db-url.js');

// Numeric columns (bigint, numeric) as JS numbers: counts and microseconds fit in 2^53.
pg.types.setTypeParser(20, (v) => Number(v));
pg.types.setTypeParser(1700, (v) => Number(v));

/** A client on the results database (results-db.js connect), as application cfscale-report. */
const connect = (url) => openResultsDb(url, 'report');

module.exports = { resultsUrl, connect, localCfEnv, REPO_ROOT };
