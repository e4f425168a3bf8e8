import { test } from 'node:test';
import assert from 'node:assert/strict';
import { runCli } from '../helpers/cli.js';
import { asBearer, fakeMailDns, signUp } from '../helpers/fixtures/oauth-client.js';
import { startServer } from '../helpers/server.js';

test('vigil account claim claims an agent account while the server runs', async () => {
  const srv = await startServer({}, undefined, { autoTick: false, mailDomainResolver: fakeMailDns() });
  try {
    const agent = await signUp(srv);
    const before = await asBearer(srv, agent.accessToken, 'GET', '/v1/public/account');
    assert.equal(before.body.data.claimed, false);

    const claimed = runCli(['account', 'claim', agent.email], srv.dataDir);
    assert.equal(claimed.status, 0, claimed.stderr);
    const out = JSON.parse(claimed.stdout);
    assert.deepEqual({ email: out.email, claimed: out.claimed, resumedChecks: out.resumedChecks }, { email: agent.email, claimed: true, resumedChecks: 0 });

    const after = await asBearer(srv, agent.accessToken, 'GET', '/v1/public/account');
    assert.equal('claimed' in after.body.data, false, 'the running server sees the claim on its next request');
    assert.equal('claimHint' in after.body.data, false);

    const again = runCli(['account', 'claim', agent.email], srv.dataDir);
    assert.equal(again.status, 2);
    assert.match(again.stderr, /already claimed/);
    assert.equal(runCli(['account', 'claim', 'nobody@example.com'], srv.dataDir).status, 2);
  } finally {
    await srv.stop();
  }
});
