'use strict';
// validation.js — the contract's field rules for ads and the numeric parameters,
// each failure with its exact message (contract/README.md "Input rules"), in table order.

const { HttpError } = require('./http-error');

const TITLE_MAX = 200;
const BODY_MAX = 4000;
const CONTACT_MAX = 200;
const PRICE_MAX = 1000000;
const PRICE_RE = /^(0|[1-9][0-9]*)(\.[0-9]{1,2})?$/;
// eslint-disable-next-line no-control-regex -- control characters are what it rejects
const LINE_CONTROL_RE = /[\x00-\x1f\x7f]/;
// eslint-disable-next-line no-control-regex -- control characters are what it rejects
const BODY_CONTROL_RE = /[\x00-\x08\x0b\x0c\x0e-\x1f\x7f]/; // \t \n \r allowed
const POSITIVE_RE = /^[1-9][0-9]*$/;
const DIGITS_RE = /^[0-9]+$/;
const BIGINT_MAX = '9223372036854775807';

const LIMIT_DEFAULT = 20;
const LIMIT_MAX = 100;
const OFFSET_MAX = 1000000;

/** Length in Unicode code points (the string came from valid UTF-8: surrogates are paired). */
function codePoints(s) {
  let n = s.length;
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    if (c >= 0xdc00 && c <= 0xdfff) n--;
  }
  return n;
}

/** More than max code points; the cheap code-unit length decides most cases. */
function over(s, max) {
  return s.length > max && codePoints(s) > max;
}

function bad(reason) {
  return new HttpError(400, reason);
}

/** The ad to store from the form fields, or a 400 HttpError. */
function validateAd({ title, body = '', price = '0', contact = '' }) {
  if (title === undefined || title === '') throw bad('title is required');
  if (over(title, TITLE_MAX)) throw bad('title over 200 characters');
  if (LINE_CONTROL_RE.test(title)) throw bad('title must be one line of text');
  if (over(body, BODY_MAX)) throw bad('body over 4000 characters');
  if (BODY_CONTROL_RE.test(body)) throw bad('body contains a control character');
  if (!PRICE_RE.test(price)) throw bad('price must be a non-negative decimal with at most 2 decimals');
  if (Number(price) > PRICE_MAX) throw bad('price over 1000000');
  if (over(contact, CONTACT_MAX)) throw bad('contact over 200 characters');
  if (LINE_CONTROL_RE.test(contact)) throw bad('contact must be one line of text');
  return { title, body, price, contact };
}

/** ^[1-9][0-9]*$ and at most 9223372036854775807 (PostgreSQL bigint). */
function isBigintId(s) {
  return POSITIVE_RE.test(s) && (s.length < BIGINT_MAX.length || (s.length === BIGINT_MAX.length && s <= BIGINT_MAX));
}

function validateAdId(s) {
  if (!isBigintId(s)) throw bad('id must be an integer from 1 to 9223372036854775807');
  return s;
}

function integerParam(params, name, def, min, max, reason) {
  const v = params.get(name);
  if (v === undefined) return def;
  if (!DIGITS_RE.test(v)) throw bad(reason);
  const n = Number(v);
  if (n < min || n > max) throw bad(reason);
  return n;
}

/** { limit, offset } of GET /ads from the query parameters. */
function validatePage(params) {
  const limit = integerParam(params, 'limit', LIMIT_DEFAULT, 1, LIMIT_MAX, 'limit must be an integer from 1 to 100');
  const offset = integerParam(params, 'offset', 0, 0, OFFSET_MAX, 'offset must be an integer from 0 to 1000000');
  return { limit, offset };
}

/** The round of POST /timings/flush: a bigint string, or null when absent. */
function validateRound(params) {
  const v = params.get('round');
  if (v === undefined) return null;
  if (!isBigintId(v)) throw bad('round must be a positive integer');
  return v;
}

/** true/false from POST /timings/recording?enabled=on|off. */
function validateEnabled(params) {
  const v = params.get('enabled');
  if (v === 'on') return true;
  if (v === 'off') return false;
  throw bad('enabled must be on or off');
}

module.exports = { validateAd, validateAdId, validatePage, validateRound, validateEnabled, codePoints };
