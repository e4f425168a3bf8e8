import { html, render } from 'htm/preact';
import { useEffect, useState } from 'preact/hooks';
import { api, whenSignedOut } from './api.js';
import { AlertsPage } from './alerts.js';
import { CheckForm } from './check-form.js';
import { CheckPage } from './check-page.js';
import { CheckList } from './list.js';
import { connectLive, disconnectLive, loadChecks } from './live.js';
import { emailLoginTokenInUrl, Login, loginTokenInUrl, redeemEmailLogin, redeemLoginToken, SetPassword, setupTokenInUrl, ssoErrorInUrl } from './login.js';
import { toast } from './ui.js';
import './style.css';

function route() {
  const parts = location.hash.replace(/^#\/?/, '').split('/');
  if (parts[0] === 'checks' && parts[1]) return { page: parts[2] === 'edit' ? 'edit' : 'check', id: decodeURIComponent(parts[1]) };
  if (parts[0] === 'new') return { page: 'new' };
  if (parts[0] === 'alerts') return { page: 'alerts' };
  if (parts[0] === 'status-pages') return parts[1] ? { page: 'status-page', id: parts[1] === 'new' ? null : decodeURIComponent(parts[1]) } : { page: 'status-pages' };
  if (parts[0] === 'keys') return { page: 'keys' };
  if (parts[0] === 'security') return { page: 'security' };
  if (parts[0] === 'members') return { page: 'members' };
  if (parts[0] === 'audit') return { page: 'audit' };
  return { page: 'list' };
}

function useRoute() {
  const [r, setR] = useState(route);
  useEffect(() => {
    const on = () => setR(route());
    window.addEventListener('hashchange', on);
    return () => window.removeEventListener('hashchange', on);
  }, []);
  return r;
}

/** Pages most visits never open are loaded on first use, keeping the list's bundle small. */
const loaders = { keys: () => import('./keys.js'), statusPages: () => import('./status-pages.js'), security: () => import('./security.js'), members: () => import('./members.js'), audit: () => import('./audit.js') };
function Lazy({ from, name, ...props }) {
  const [mod, setMod] = useState(null);
  useEffect(() => {
    loaders[from]().then(setMod, (err) => toast(err.message, 'error'));
  }, [from]);
  if (!mod) return html`<p class="muted">Loading…</p>`;
  const Page = mod[name];
  return html`<${Page} ...${props} />`;
}

const THEMES = ['auto', 'light', 'dark'];
function applyTheme(theme) {
  if (theme === 'auto') delete document.documentElement.dataset.theme;
  else document.documentElement.dataset.theme = theme;
  localStorage.setItem('vigil-theme', theme);
}

/** A member's session (not an API key's): it has passkeys and security settings of its own. */
const isPerson = (session) => Boolean(session.user);
/** Owners and admins manage members and read the audit log (a key with every scope counts as an admin). */
const manages = (session) => (session.user ? ['owner', 'admin'].includes(session.user.role) : session.access === null && session.scopes.length === 5);

function Shell({ session, onSignOut, children }) {
  const [theme, setTheme] = useState(localStorage.getItem('vigil-theme') ?? 'auto');
  const cycle = () => {
    const next = THEMES[(THEMES.indexOf(theme) + 1) % THEMES.length];
    setTheme(next);
    applyTheme(next);
  };
  return html`<div class="shell">
    <a class="skip" href="#main">Skip to content</a>
    <header class="top">
      <a class="brand" href="#/"><span class="logo" aria-hidden="true">◉</span> Vigil</a>
      <nav><a href="#/">Checks</a><a href="#/status-pages">Status pages</a><a href="#/alerts">Alerts</a><a href="#/keys">API keys</a>${manages(session) ? html`<a href="#/members">Members</a><a href="#/audit">Audit log</a>` : ''}${isPerson(session) ? html`<a href="#/security">Security</a>` : ''}</nav>
      <span class="who" title=${session.scopes.join(' ')}>${session.user ? session.user.email : session.account.email}${session.user ? html` <small class="role">${session.user.role}</small>` : ''}${session.access ? ' · restricted key' : ''}</span>
      <button type="button" class="ghost" onClick=${cycle} aria-label=${`Theme: ${theme}`}>${theme === 'dark' ? '☾' : theme === 'light' ? '☀' : '◐'}</button>
      <button type="button" class="ghost" onClick=${onSignOut}>Sign out</button>
    </header>
    <main id="main" tabindex="-1">${children}</main>
  </div>`;
}

function App() {
  const [session, setSession] = useState(undefined);
  const [notice, setNotice] = useState(null);
  const [setupToken, setSetupToken] = useState(setupTokenInUrl);
  const r = useRoute();

  const signedOut = (message) => {
    disconnectLive();
    setNotice(message ?? null);
    setSession(null);
  };
  const signedIn = (data) => {
    setSession(data);
    setNotice(null);
    loadChecks().catch((err) => toast(err.message, 'error'));
    connectLive(() => signedOut('Your session has ended; sign in again.'));
  };
  useEffect(() => {
    whenSignedOut((message) => signedOut(message));
    if (setupToken) return;
    const ssoError = ssoErrorInUrl();
    if (ssoError) return signedOut(ssoError);
    const token = loginTokenInUrl();
    const emailToken = emailLoginTokenInUrl();
    const start = token ? redeemLoginToken(token) : emailToken ? redeemEmailLogin(emailToken) : api('GET', '/sessions/current');
    start.then(({ data }) => signedIn(data), (err) => signedOut(token || emailToken ? err.message : null));
  }, []);
  useEffect(() => {
    // A set-up link opened in a tab that has the dashboard already changes only the fragment.
    const onHash = () => {
      const t = setupTokenInUrl();
      if (t) setSetupToken(t);
    };
    window.addEventListener('hashchange', onHash);
    return () => window.removeEventListener('hashchange', onHash);
  }, []);
  useEffect(() => {
    // "/" jumps to the search box, "n" to a new check, "g" back to the list.
    const onKey = (e) => {
      if (e.target.closest?.('input, textarea, select') || e.metaKey || e.ctrlKey || e.altKey) return;
      if (e.key === '/' && document.getElementById('search')) {
        e.preventDefault();
        document.getElementById('search').focus();
      } else if (e.key === 'n') location.hash = '#/new';
      else if (e.key === 'g') location.hash = '#/';
    };
    window.addEventListener('keydown', onKey);
    return () => window.removeEventListener('keydown', onKey);
  }, []);

  if (session === undefined) return html`<p class="muted center">Loading…</p>`;
  if (setupToken) return html`<${SetPassword} token=${setupToken} onSignedIn=${(data) => { setSetupToken(null); signedIn(data); }} />`;
  if (session === null) return html`<${Login} onSignedIn=${signedIn} notice=${notice} />`;
  const signOut = () => api('DELETE', '/sessions/current').finally(() => signedOut(null));
  const page =
    r.page === 'check' ? html`<${CheckPage} key=${r.id} id=${r.id} scopes=${session.scopes} who=${session.account.email} />`
    : r.page === 'edit' ? html`<${CheckForm} key=${r.id} id=${r.id} />`
    : r.page === 'new' ? html`<${CheckForm} />`
    : r.page === 'alerts' ? html`<${AlertsPage} scopes=${session.scopes} restricted=${session.access !== null} />`
    : r.page === 'status-pages' ? html`<${Lazy} key="pages" from="statusPages" name="StatusPagesPage" scopes=${session.scopes} restricted=${session.access !== null} />`
    : r.page === 'status-page' ? html`<${Lazy} key=${r.id ?? 'new'} from="statusPages" name="StatusPageForm" id=${r.id} scopes=${session.scopes} restricted=${session.access !== null} />`
    : r.page === 'security' && session.user ? html`<${Lazy} key="security" from="security" name="SecurityPage" user=${session.user} />`
    : r.page === 'members' ? html`<${Lazy} key="members" from="members" name="MembersPage" user=${session.user} />`
    : r.page === 'audit' ? html`<${Lazy} key="audit" from="audit" name="AuditPage" />`
    : r.page === 'keys' ? html`<${Lazy} key="keys" from="keys" name="KeysPage" scopes=${session.scopes} restricted=${session.access !== null} />`
    : html`<${CheckList} />`;
  return html`<${Shell} session=${session} onSignOut=${signOut}>${page}<//>`;
}

applyTheme(localStorage.getItem('vigil-theme') ?? 'auto');
render(html`<${App} />`, document.getElementById('app'));
