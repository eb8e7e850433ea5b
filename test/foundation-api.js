'use strict';
// foundation-api.js — the local platform's Cloud Controller behind an HTTP proxy that answers
// GET /v3/info as a foundation's (no cfscale-local name, no custom keys) and passes every
// other request on: the real cf CLI logged in through it is targeted at "another API", the
// case where the scripts must take the target for a foundation and dial https://ROUTE
// (docs/cf-platform.md §22). Run as `node foundation-api.js API_URL`, it prints its URL
// and serves until killed (a process of its own: tests that spawnSync cannot serve it).

const http = require('node:http');

/** The document a foundation answers, built as cloud_controller_ng's InfoPresenter does. */
function foundationInfo(base) {
  return {
    build: '', cli_version: { minimum: '', recommended: '' }, custom: {}, description: '', name: '', version: 0,
    osbapi_version: '2.15', rate_limits: { enabled: false, general_limit: null, reset_interval_in_minutes: null },
    links: { self: { href: `${base}/v3/info` }, support: { href: '' } },
  };
}

/** Starts the proxy on 127.0.0.1:0 in front of `api` (http://host:port) → { url, close() }. */
async function startFoundationApi(api) {
  const upstream = new URL(api);
  const server = http.createServer((req, res) => {
    if (req.method === 'GET' && req.url === '/v3/info') {
      res.writeHead(200, { 'content-type': 'application/json; charset=utf-8' });
      res.end(JSON.stringify(foundationInfo(`http://${req.headers.host}`)));
      return;
    }
    const out = http.request({ host: upstream.hostname, port: upstream.port, method: req.method, path: req.url, headers: req.headers }, (up) => {
      res.writeHead(up.statusCode, up.headers);
      up.pipe(res);
    });
    out.on('error', () => { res.writeHead(502); res.end(); });
    req.pipe(out);
  });
  await new Promise((resolve) => { server.listen(0, '127.0.0.1', resolve); });
  return {
    url: `http://127.0.0.1:${server.address().port}`,
    close: () => new Promise((resolve) => { server.close(resolve); server.closeAllConnections(); }),
  };
}

if (require.main === module) {
  startFoundationApi(process.argv[2]).then(({ url }) => process.stdout.write(`${url}\n`));
}

module.exports = { startFoundationApi };
