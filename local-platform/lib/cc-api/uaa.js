// uaa.js — the UAA token endpoint the cf CLI logs in with: POST /oauth/token with the
// password grant (user admin / admin, as on PCF Dev) or the refresh_token grant, and
// GET /login (the prompts `cf login` asks for). Tokens are JWTs signed with a key kept
// in $CFSCALE_HOME/uaa.key, carrying the claims the CLI decodes (user_name, user_id, origin, client_id, exp:
// cli util/configv3/default_user_config.go, api/uaa/refresh_token.go).
'use strict';

const fs = require('node:fs');
const crypto = require('node:crypto');

const USER = { name: 'admin', password: 'admin', id: 'c3c3a6a8-3c8b-4b6e-9d6b-000000000001' };
// UAA's default access-token validity, 12 h (uaa.yml jwt.token.policy.accessTokenValiditySeconds).
const ACCESS_TOKEN_SEC = 43200;
const REFRESH_TOKEN_SEC = 2592000;
const SCOPES = ['openid', 'cloud_controller.admin', 'cloud_controller.read', 'cloud_controller.write', 'scim.read', 'uaa.user'];

const b64url = (v) => Buffer.from(typeof v === 'string' ? v : JSON.stringify(v)).toString('base64url');

// The signing key, kept in keyFile so that a logged-in CLI stays logged in across a
// daemon restart (`cfl down` + `cfl up`), as UAA's tokens outlive a CC restart.
function signingKey(keyFile) {
  try { return fs.readFileSync(keyFile); } catch { /* first start */ }
  const key = crypto.randomBytes(32);
  fs.writeFileSync(keyFile, key, { mode: 0o600 });
  return key;
}

class Uaa {
  constructor(issuerUrl, keyFile) {
    this.issuer = `${issuerUrl}/oauth/token`;
    this.key = signingKey(keyFile);
  }

  sign(claims) {
    const head = `${b64url({ alg: 'HS256', kid: 'cfscale-local', typ: 'JWT' })}.${b64url(claims)}`;
    return `${head}.${crypto.createHmac('sha256', this.key).update(head).digest('base64url')}`;
  }

  // The claims of a valid, unexpired token signed here, else null.
  verify(token) {
    const parts = String(token || '').split('.');
    if (parts.length !== 3) return null;
    const want = Buffer.from(crypto.createHmac('sha256', this.key).update(`${parts[0]}.${parts[1]}`).digest('base64url'));
    const given = Buffer.from(parts[2]); // bytes: a signature of other characters is no crash
    if (want.length !== given.length || !crypto.timingSafeEqual(want, given)) return null;
    let claims;
    try { claims = JSON.parse(Buffer.from(parts[1], 'base64url').toString('utf8')); } catch { return null; }
    return claims !== null && typeof claims === 'object' && claims.exp * 1000 > Date.now() ? claims : null;
  }

  tokens(clientId) {
    const iat = Math.floor(Date.now() / 1000);
    const base = {
      sub: USER.id, user_id: USER.id, user_name: USER.name, email: USER.name, origin: 'uaa',
      client_id: clientId, cid: clientId, azp: clientId, grant_type: 'password', zid: 'uaa',
      iss: this.issuer, iat, scope: SCOPES, aud: ['cloud_controller', 'openid', clientId],
    };
    const jti = crypto.randomUUID().replace(/-/g, '');
    return {
      access_token: this.sign({ ...base, jti, exp: iat + ACCESS_TOKEN_SEC }),
      token_type: 'bearer',
      refresh_token: this.sign({ ...base, jti: `${jti}-r`, exp: iat + REFRESH_TOKEN_SEC, refresh: true }),
      expires_in: ACCESS_TOKEN_SEC - 1,
      scope: SCOPES.join(' '),
      jti,
    };
  }

  // POST /oauth/token, form-encoded. UAA answers errors as {error, error_description}.
  token(form, basicClientId) {
    const clientId = basicClientId || form.client_id || 'cf';
    if (form.grant_type === 'password') {
      if (form.username !== USER.name || form.password !== USER.password) {
        return [401, { error: 'unauthorized', error_description: 'Bad credentials' }];
      }
      return [200, this.tokens(clientId)];
    }
    if (form.grant_type === 'refresh_token') {
      const claims = this.verify(form.refresh_token);
      if (!claims || !claims.refresh) return [401, { error: 'invalid_token', error_description: 'Invalid refresh token' }];
      return [200, this.tokens(clientId)];
    }
    return [400, { error: 'unsupported_grant_type', error_description: `Unsupported grant type: ${form.grant_type}` }];
  }

  // GET /login: UAA's login info; the CLI reads `prompts` for `cf login`'s questions.
  loginInfo() {
    return {
      app: { version: '78.0.0' },
      showLoginLinks: true,
      links: { uaa: this.issuer.replace(/\/oauth\/token$/, ''), login: this.issuer.replace(/\/oauth\/token$/, '') },
      zone_name: 'uaa',
      entityID: 'cfscale-local',
      commit_id: 'local',
      idpDefinitions: {},
      prompts: { username: ['text', 'Email'], password: ['password', 'Password'] },
      timestamp: new Date().toISOString(),
    };
  }
}

module.exports = { Uaa, USER };
