// spaces.js — `cf create-space` and `cf delete-space` on the local Cloud Controller
// (cloud_controller_ng app/controllers/v3/spaces_v3_controller.rb, app/actions/space_create.rb,
// app/messages/space_create_message.rb, app/jobs/v3/space_delete job) and the roles the CLI
// gives its user in a new space (app/controllers/v3/roles_controller.rb,
// app/actions/role_create.rb): the one user, admin, has organization_user and
// organization_manager in the org. A new space is empty and stays so: apps live in `local`
// (README "Conformance"). Spaces and their roles are kept in state.json.
'use strict';

const crypto = require('node:crypto');
const P = require('./presenters');
const errors = require('./errors');
const V = require('./validate');
const { USER } = require('./uaa');

const ORG_ROLES = ['organization_user', 'organization_auditor', 'organization_manager', 'organization_billing_manager'];
const SPACE_ROLES = ['space_developer', 'space_auditor', 'space_manager', 'space_supporter'];
// admin's roles in the org (the local org has one user).
const ADMIN_ORG_ROLES = ['organization_user', 'organization_manager'];

function register(router, { platform, base, jobs }) {
  const spaces = () => platform.state.spaces;
  const named = (name) => name === P.SPACE.name || Object.values(spaces()).some((s) => s.name === name);

  router.add('POST', '/v3/spaces', ({ body }) => platform.exclusive(() => {
    const b = V.isObject(body) ? body : {};
    const problems = V.unknownKeys(b, ['name', 'relationships', 'metadata']);
    if (typeof b.name !== 'string' || !b.name.length) problems.push(typeof b.name === 'string' ? "Name can't be blank" : 'Name must be a string');
    else if (b.name.length > 255) problems.push('Name is too long (maximum is 255 characters)');
    if (problems.length) throw errors.unprocessable(problems.join(', '));
    if (b.relationships?.organization?.data?.guid !== P.ORG.guid) throw errors.unprocessable('Invalid organization. Ensure the organization exists and you have access to it.');
    if (named(b.name)) throw errors.unprocessable('Name must be unique per organization');
    const s = { guid: crypto.randomUUID(), name: b.name, createdAt: new Date().toISOString(), roles: [] };
    spaces()[s.guid] = s;
    platform.save();
    return [201, P.space(base, s)];
  }));

  // The local space holds the platform's apps and services: it stays.
  router.add('DELETE', '/v3/spaces/:guid', ({ params }) => {
    if (params.guid === P.SPACE.guid) throw errors.unprocessable(`The local platform keeps its space '${P.SPACE.name}' (its apps and services live there)`);
    if (!spaces()[params.guid]) throw errors.resourceNotFound('Space');
    return jobs.start('space.delete', () => platform.exclusive(() => {
      delete spaces()[params.guid];
      platform.save();
    }));
  });

  const roleOf = (type, { space = null }) => {
    const guid = crypto.createHash('sha1').update(`${type}:${space ? space.guid : P.ORG.guid}`).digest('hex');
    const g = `${guid.slice(0, 8)}-${guid.slice(8, 12)}-${guid.slice(12, 16)}-${guid.slice(16, 20)}-${guid.slice(20, 32)}`;
    const at = space ? P.ts(space.createdAt) : P.EPOCH;
    return {
      guid: g, created_at: at, updated_at: at, type,
      relationships: {
        user: { data: { guid: USER.id } },
        organization: { data: space ? null : { guid: P.ORG.guid } },
        space: { data: space ? { guid: space.guid } : null },
      },
      links: {
        self: { href: `${base}/v3/roles/${g}` }, user: { href: `${base}/v3/users/${USER.id}` },
        ...(space ? { space: { href: `${base}/v3/spaces/${space.guid}` } } : { organization: { href: `${base}/v3/organizations/${P.ORG.guid}` } }),
      },
    };
  };

  router.add('POST', '/v3/roles', ({ body }) => platform.exclusive(() => {
    const b = V.isObject(body) ? body : {};
    const user = b.relationships?.user?.data || {};
    if (![...ORG_ROLES, ...SPACE_ROLES].includes(b.type)) throw errors.unprocessable(`Role type '${b.type}' is invalid.`);
    if (user.guid !== USER.id && user.username !== USER.name) {
      throw errors.unprocessable(user.username ? `No user exists with the username '${user.username}' and origin '${user.origin || 'uaa'}'.` : 'Invalid user. Ensure that the user exists and you have access to it.');
    }
    const spaceGuid = b.relationships?.space?.data?.guid;
    if (ORG_ROLES.includes(b.type)) {
      if (b.relationships?.organization?.data?.guid !== P.ORG.guid) throw errors.unprocessable('Invalid organization. Ensure that the organization exists and you have access to it.');
      if (ADMIN_ORG_ROLES.includes(b.type)) throw errors.unprocessable(`User '${USER.name}' already has '${b.type}' role in organization '${P.ORG.name}'.`);
      throw errors.unprocessable(`Role type '${b.type}' is not given to a user on the local platform.`);
    }
    const space = spaces()[spaceGuid];
    if (!space) throw errors.unprocessable('Invalid space. Ensure that the space exists and you have access to it.');
    if (space.roles.includes(b.type)) throw errors.unprocessable(`User '${USER.name}' already has '${b.type}' role in space '${space.name}'.`);
    space.roles.push(b.type);
    platform.save();
    return [201, roleOf(b.type, { space })];
  }));
}

module.exports = { register };
