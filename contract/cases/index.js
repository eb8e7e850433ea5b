// index.js — the one table of contract cases, numbered in one sequence (a case's number
// makes its correlation id, so the same case sends the same bytes to every app).
'use strict';

const routing = require('./routing');
const ads = require('./ads');
const control = require('./control');

module.exports = { TABLE: [...routing.cases, ...control.cases, ...ads.cases] };
