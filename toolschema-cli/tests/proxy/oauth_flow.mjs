// The TypeScript SDK's own OAuth pieces, end to end, against `toolschema serve --http`:
// its authorization server (`mcpAuthRouter` with the SDK's demo in-memory provider, and the
// demo's introspection endpoint) started here on 127.0.0.1, and its client
// (StreamableHTTPClientTransport with an OAuthClientProvider) doing the real flow: 401,
// Protected Resource Metadata discovery, authorization server metadata, dynamic client
// registration, PKCE authorization (the demo provider approves at once; the redirect is read
// here instead of by a browser), token exchange with the resource indicator, then calls; a
// call needing a scope the token lacks gets 403 insufficient_scope and the SDK re-authorizes
// with that scope (step-up).
//
// usage: node oauth_flow.mjs   (prints {"issuer": URL}, reads the MCP URL on stdin, then
// prints one JSON line per fact)
import { randomUUID } from 'node:crypto';
import { createInterface } from 'node:readline';
import express from 'express';
import { mcpAuthRouter } from '@modelcontextprotocol/sdk/server/auth/router.js';
import { DemoInMemoryAuthProvider } from '@modelcontextprotocol/sdk/examples/server/demoInMemoryOAuthProvider.js';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { UnauthorizedError } from '@modelcontextprotocol/sdk/client/auth.js';

const say = (fact) => console.log(JSON.stringify(fact));

// The authorization server, on a free port.
const app = express();
const listening = await new Promise((resolve) => {
  const s = app.listen(0, '127.0.0.1', () => resolve(s));
});
const issuer = new URL(`http://127.0.0.1:${listening.address().port}/`);
let mcpUrl;
// Codes are exchanged only for this MCP server (RFC 8707): validated like the demo's strict mode.
const provider = new DemoInMemoryAuthProvider((resource) => !!resource && resource.toString() === mcpUrl);
app.use(express.json());
app.use(express.urlencoded());
app.use(mcpAuthRouter({ provider, issuerUrl: issuer, scopesSupported: ['mcp:tools', 'files:write'] }));
let introspections = 0;
app.post('/introspect', async (req, res) => {
  introspections += 1;
  try {
    const info = await provider.verifyAccessToken(req.body.token);
    res.json({ active: true, client_id: info.clientId, scope: info.scopes.join(' '), exp: info.expiresAt, aud: info.resource });
  } catch {
    res.status(401).json({ active: false });
  }
});
say({ issuer: issuer.href });

const lines = createInterface({ input: process.stdin });
mcpUrl = (await lines[Symbol.asyncIterator]().next()).value.trim();

// The client's OAuth provider: a public client registered dynamically; the authorization
// redirect is fetched without following it, and the code read from its Location.
class TestClientProvider {
  constructor() { this.code = undefined; this.redirects = 0; }
  get redirectUrl() { return 'http://127.0.0.1:9/callback'; }
  get clientMetadata() {
    return { client_name: 'toolschema-oauth-test', redirect_uris: [this.redirectUrl], grant_types: ['authorization_code', 'refresh_token'], response_types: ['code'], token_endpoint_auth_method: 'none', scope: 'mcp:tools files:write' };
  }
  state() { return randomUUID(); }
  clientInformation() { return this.client; }
  saveClientInformation(info) { this.client = info; say({ registered: !!info.client_id }); }
  tokens() { return this.saved; }
  saveTokens(tokens) { this.saved = tokens; say({ token: { scope: tokens.scope, type: tokens.token_type } }); }
  saveCodeVerifier(v) { this.verifier = v; }
  codeVerifier() { return this.verifier; }
  async redirectToAuthorization(url) {
    this.redirects += 1;
    say({ authorize: { pkce: url.searchParams.get('code_challenge_method'), resource: url.searchParams.get('resource'), scope: url.searchParams.get('scope') } });
    const r = await fetch(url, { redirect: 'manual' });
    this.code = new URL(r.headers.get('location')).searchParams.get('code');
  }
}

const auth = new TestClientProvider();
const transport = new StreamableHTTPClientTransport(new URL(mcpUrl), { authProvider: auth });
const client = new Client({ name: 'oauth-flow', version: '1.0.0' });
try {
  await client.connect(transport);
  say({ error: 'connected without authorization' });
} catch (e) {
  say({ unauthorized: e instanceof UnauthorizedError });
}
await transport.finishAuth(auth.code);
const again = new StreamableHTTPClientTransport(new URL(mcpUrl), { authProvider: auth });
await client.connect(again);
const listed = await client.listTools();
say({ tools: listed.tools.map((t) => t.name), schemes: Object.fromEntries(listed.tools.map((t) => [t.name, t._meta?.securitySchemes ?? null])) });
const open = await client.callTool({ name: 'open', arguments: {} });
say({ call: 'open', text: open.content[0].text });
// `write` needs files:write; the first token holds what the metadata's scopes_supported
// named (mcp:tools): 403 insufficient_scope, then the SDK asks for files:write.
try {
  const w = await client.callTool({ name: 'write', arguments: { path: 'x' } });
  say({ call: 'write', text: w.content[0].text, stepUp: false });
} catch (e) {
  say({ stepUp: e instanceof UnauthorizedError });
  await again.finishAuth(auth.code);
  const w = await client.callTool({ name: 'write', arguments: { path: 'x' } });
  say({ call: 'write', text: w.content[0].text });
}
say({ redirects: auth.redirects, introspected: introspections > 0 });
await client.close();
listening.close();
process.exit(0);
