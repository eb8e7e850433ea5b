// errors.js — Cloud Controller's error document, {"errors":[{"code","title","detail"}]},
// with CC's codes, titles and HTTP statuses (cloud_controller_ng errors/v2.yml, rendered
// by V3ErrorPresenter). Handlers throw a CcError; the server renders it.
'use strict';

class CcError extends Error {
  constructor(status, code, title, detail) {
    super(detail);
    this.status = status;
    this.code = code;
    this.title = title;
  }

  toJSON() { return { errors: [{ detail: this.message, title: this.title, code: this.code }] }; }
}

// CC's CompoundError (lib/cloud_controller/errors/compound_error.rb): several errors in
// one document, the status of the first.
class CompoundError extends CcError {
  constructor(list) {
    super(list[0].status, list[0].code, list[0].title, list[0].message);
    this.list = list;
  }

  toJSON() { return { errors: this.list.flatMap((e) => e.toJSON().errors) }; }
}

const notFound = () => new CcError(404, 10000, 'CF-NotFound', 'Unknown request');
const resourceNotFound = (what) => new CcError(404, 10010, 'CF-ResourceNotFound', `${what} not found`);
const notAuthenticated = () => new CcError(401, 10002, 'CF-NotAuthenticated', 'Authentication error');
const invalidAuthToken = () => new CcError(401, 1000, 'CF-InvalidAuthToken', 'Invalid Auth Token');
const unprocessable = (detail) => new CcError(422, 10008, 'CF-UnprocessableEntity', detail);
const badQuery = (detail) => new CcError(400, 10005, 'CF-BadQueryParameter', `The query parameter is invalid: ${detail}`);
const invalidRequest = (detail) => new CcError(400, 10004, 'CF-InvalidRequest', detail || 'The request is invalid');
const messageParseError = (detail) => new CcError(400, 1001, 'CF-MessageParseError', `Request invalid due to parse error: ${detail}`);
// An error document made elsewhere (cf-api.js) with its status.
const fromDocument = (status, doc) => {
  const e = doc.errors[0];
  return new CcError(status, e.code, e.title, e.detail);
};
const serverError = () => new CcError(500, 10001, 'CF-ServerError', 'Server error');
// A name a model holds once per space (errors/v3.yml 10016).
const uniqueness = (detail) => new CcError(422, 10016, 'CF-UniquenessError', detail);
const badRequest = (detail) => new CcError(400, 1004, 'CF-BadRequest', `Bad request: ${detail}`);
// A feature flag that is off (FeatureFlag.raise_unless_enabled!, errors/v2.yml 330002).
const featureDisabled = (flag) => new CcError(403, 330002, 'CF-FeatureDisabled', `Feature Disabled: ${flag}`);
// problems (a message's) as one 422, or nothing when there are none.
const refuseIf = (problems) => { if (problems.length) throw unprocessable(problems.join(', ')); };

module.exports = {
  CcError, CompoundError, notFound, resourceNotFound, notAuthenticated, invalidAuthToken, unprocessable,
  badQuery, invalidRequest, messageParseError, serverError, fromDocument, uniqueness, badRequest, featureDisabled, refuseIf,
};
