import { html, render } from 'htm/preact';
import { useEffect, useState } from 'preact/hooks';
import { api, whenSignedOut } from './api.js';
import { AlertsPage } from './alerts.js';
import { CheckForm } from './check-form.js';
import { CheckPage } from './check-page.js';
import { CheckList } from './list.js';
import { connectLive, disconnectLive, loadChecks } from './live.js';
import { emailLoginTokenInUrl, Login, loginTokenInUrl, redeemEmailLogin, redeemLoginToken, ssoErrorInUrl } from './login.js';
import { SetupPassword, setupTokenInUrl } from './setup.js';
import { toast } from './ui.js';
import './style.css';

function route() {
  const parts = location.hash.replace(/^#\/?/, '').split('/');
  if (parts[0] === 'checks' && parts[1]) return { page: parts[2] === 'edit' ? 'edit' : 'check', id: decodeURIComponent(parts[1]) };
  if (parts[0] === 'new') return { page: 'new' };
  if (parts[0] === 'alerts') return { page: 'alerts' };
  if (parts[0] === 'status-pages') return parts[1] ? { page: 'status-page', id: parts[1] === 'new' ? null : decodeURIComponent(parts[1]) } : { page: 'status-pages' };
  if (parts[0] === 'keys') return { page: 'keys' };
  if (parts[0] === 'maintenance') return { page: 'maintenance' };
  if (parts[0] === 'members') return { page: 'members' };
  if (parts[0] === 'audit-log') return { page: 'audit-log' };
  if (parts[0] === 'security') return { page: 'security' };
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
const loaders = {
  keys: () => import('./keys.js'), statusPages: () => import('./status-pages.js'), maintenance: () => import('./maintenance.js'),
  members: () => import('./members.js'), auditLog: () => import('./audit-log.js'), security: () => import('./security.js'),
};

/** Owners and admins (or a key with every scope) see the Members and Audit log pages. */
const managesPeople = (session) =>
  session.user ? ['owner', 'admin'].includes(session.user.role) : session.access === null && session.scopes.length === 5;
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
      <nav><a href="#/">Checks</a><a href="#/maintenance">Maintenance</a><a href="#/status-pages">Status pages</a><a href="#/alerts">Alerts</a><a href="#/keys">API keys</a>${managesPeople(session) ? html`<a href="#/members">Members</a><a href="#/audit-log">Audit log</a>` : ''}${session.user ? html`<a href="#/security">Security</a>` : ''}</nav>
      <span class="who" title=${session.scopes.join(' ')}>${session.user ? `${session.user.email} · ${session.user.role}` : session.account.email}${session.access ? ' · restricted key' : ''}</span>
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
    if (setupToken) return setSession(null);
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
      if (!t) return;
      setSetupToken(t);
      setSession(null);
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
  if (session === null && setupToken && location.hash.startsWith('#setup=')) return html`<${SetupPassword} token=${setupToken} onSignedIn=${signedIn} />`;
  if (session === null) return html`<${Login} onSignedIn=${signedIn} notice=${notice} />`;
  const signOut = () => api('DELETE', '/sessions/current').finally(() => signedOut(null));
  const page =
    r.page === 'check' ? html`<${CheckPage} key=${r.id} id=${r.id} scopes=${session.scopes} who=${session.account.email} />`
    : r.page === 'edit' ? html`<${CheckForm} key=${r.id} id=${r.id} />`
    : r.page === 'new' ? html`<${CheckForm} />`
    : r.page === 'alerts' ? html`<${AlertsPage} scopes=${session.scopes} restricted=${session.access !== null} />`
    : r.page === 'status-pages' ? html`<${Lazy} key="pages" from="statusPages" name="StatusPagesPage" scopes=${session.scopes} restricted=${session.access !== null} />`
    : r.page === 'status-page' ? html`<${Lazy} key=${r.id ?? 'new'} from="statusPages" name="StatusPageForm" id=${r.id} scopes=${session.scopes} restricted=${session.access !== null} />`
    : r.page === 'maintenance' ? html`<${Lazy} key="maintenance" from="maintenance" name="MaintenancePage" scopes=${session.scopes} />`
    : r.page === 'keys' ? html`<${Lazy} key="keys" from="keys" name="KeysPage" scopes=${session.scopes} restricted=${session.access !== null} />`
    : r.page === 'members' ? html`<${Lazy} key="members" from="members" name="MembersPage" myRole=${session.user?.role ?? null} myId=${session.user?.id ?? null} />`
    : r.page === 'audit-log' ? html`<${Lazy} key="audit" from="auditLog" name="AuditLogPage" />`
    : r.page === 'security' && session.user ? html`<${Lazy} key="security" from="security" name="SecurityPage" user=${session.user} />`
    : html`<${CheckList} />`;
  return html`<${Shell} session=${session} onSignOut=${signOut}>${page}<//>`;
}

applyTheme(localStorage.getItem('vigil-theme') ?? 'auto');
render(html`<${App} />`, document.getElementById('app'));
