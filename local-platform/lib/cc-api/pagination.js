// pagination.js — CC's pages over every list the local API answers: `page` (default 1) and
// `per_page` (default 50, at most 5000), links first/last/next/previous carrying the
// request's other query parameters, as cloud_controller_ng app/messages/list_message.rb
// (PaginationPageValidator), lib/cloud_controller/paging/pagination_options.rb
// (PER_PAGE_DEFAULT) and app/presenters/v3/paginated_list_presenter.rb
// (present_pagination_hash) do it. The cf CLI follows `next` until it is null
// (cli api/cloudcontroller/ccv3/paginate.go). docs/cf-platform.md §14.
'use strict';

const errors = require('./errors');

const PER_PAGE_DEFAULT = 50;
const PER_PAGE_MAX = 5000;

// {page, perPage} of a query, or CC's 400 CF-BadQueryParameter (10005).
function pageOf(query) {
  const problems = [];
  const page = query.get('page') === null ? 1 : Number(query.get('page'));
  const perPage = query.get('per_page') === null ? PER_PAGE_DEFAULT : Number(query.get('per_page'));
  if (!(Number.isInteger(page) && page > 0)) problems.push('Page must be a positive integer');
  if (!(Number.isInteger(perPage) && perPage > 0)) problems.push('Per page must be a positive integer');
  else if (perPage > PER_PAGE_MAX) problems.push(`Per page must be between 1 and ${PER_PAGE_MAX}`);
  if (problems.length) throw errors.badQuery(problems.join(', '));
  return { page, perPage };
}

// A list document ({pagination, resources}) cut to the page the URL asks for; any other
// document as it is.
function paginate(doc, url, base) {
  if (!doc || typeof doc !== 'object' || !doc.pagination || !Array.isArray(doc.resources)) return doc;
  const { page, perPage } = pageOf(url.searchParams);
  const total = doc.resources.length;
  const last = Math.max(1, Math.ceil(total / perPage));
  const href = (p) => {
    const q = new URLSearchParams(url.searchParams);
    q.set('page', String(p));
    q.set('per_page', String(perPage));
    q.sort();
    return { href: `${base}${url.pathname}?${q}` };
  };
  return {
    ...doc,
    pagination: {
      total_results: total, total_pages: last, first: href(1), last: href(last),
      next: page + 1 <= last ? href(page + 1) : null, previous: page > 1 ? href(page - 1) : null,
    },
    resources: doc.resources.slice((page - 1) * perPage, page * perPage),
  };
}

module.exports = { paginate, pageOf, PER_PAGE_DEFAULT, PER_PAGE_MAX };
