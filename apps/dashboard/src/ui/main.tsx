// First: repairs a locale Intl refuses before any module (uPlot) reads it (docs/dashboard.md, "Locale").
import './navigator-locale';
import 'uplot/dist/uPlot.min.css';
import './styles.css';
import { render } from 'preact';
import { useEffect, useRef, useState } from 'preact/hooks';
import { Link, Redirect, Route, Router, Switch, useRoute } from 'wouter-preact';
import {
  authApi,
  earlyWhoami,
  sessionHint,
  sessionIdentity,
  tokenStore,
  setCredentials,
  whenUnauthorized,
  type Identity,
  type SessionState,
  whoami,
} from './api';
import { ErrorMessage, Loading } from './components';
import { errorMessage } from './hooks';
import { BroadcastPage } from './pages/broadcast';
import { EmailServerPage } from './pages/email-server';
import { EmailServers, NewEmailServer } from './pages/email-servers';
import { BroadcastForm } from './pages/broadcast-form';
import { Broadcasts } from './pages/broadcasts';
import { FormPage } from './pages/form';
import { Forms } from './pages/forms';
import { SegmentPage } from './pages/segment';
import { NewSegment, Segments } from './pages/segments';
import { SequencePage } from './pages/sequence';
import { Sequences } from './pages/sequences';
import { AuditLog } from './pages/audit-log';
import { Sessions } from './pages/sessions';
import { Settings } from './pages/settings';
import { ForgotPassword, ResetPassword, SignIn, TwoFactorStep } from './pages/sign-in';
import { RequiredEnrolment, TwoFactor } from './pages/two-factor';
import { UserPage } from './pages/user';
import { Users } from './pages/users';
import { Statistics } from './pages/statistics';
import { SubscriberPage } from './pages/subscriber';
import { Subscribers } from './pages/subscribers';
import { TemplateEditor } from './pages/template-editor';
import { Templates } from './pages/templates';
import { Topics } from './pages/topics';
import { Suppressions } from './pages/suppressions';
import { TransactionalPage, Transactionals } from './pages/transactionals';
import { WebhookPage } from './pages/webhook';
import { Webhooks } from './pages/webhooks';
import { AccountContext, SessionContext, useAccount, useCan, useIdentity, useTeamAccess, type Account } from './session';

function NavLink({ href, children }: { href: string; children: string }) {
  const [active] = useRoute(`${href}/*?`);
  return (
    <Link href={href} aria-current={active ? 'page' : undefined}>
      {children}
    </Link>
  );
}

/** The channel a signed-in user acts for; a select when they have several (docs/dashboard.md, "Signing in"). */
function ChannelSwitcher() {
  const identity = useIdentity();
  const account = useAccount();
  const channels = identity.channels ?? [];
  if (identity.channel === null) return <span class="who">No channel yet</span>;
  if (channels.length < 2) return <span class="who">Channel: {identity.channel.name}</span>;
  return (
    <label class="who">
      Channel{' '}
      <select name="channel" value={String(identity.channel.id)} onChange={(e) => void account.switchChannel(Number(e.currentTarget.value))}>
        {channels.map((c) => (
          <option key={c.id} value={String(c.id)}>
            {c.name} ({c.role})
          </option>
        ))}
      </select>
    </label>
  );
}

function startPage(can: (p: string) => boolean, team: { users: boolean }, signedIn: boolean): string {
  if (can('broadcasts_read')) return '/broadcasts';
  if (can('subscribers_read')) return '/subscribers';
  if (can('sequences_read')) return '/sequences';
  if (can('segments_read')) return '/segments';
  if (can('webhook_endpoints_read')) return '/webhooks';
  if (can('templates_read')) return '/templates';
  if (can('email_servers_read')) return '/email-servers';
  if (team.users) return '/users';
  return signedIn ? '/sessions' : '/webhooks';
}

function Layout() {
  const identity = useIdentity();
  const account = useAccount();
  const can = useCan();
  const team = useTeamAccess();
  const user = identity.user;
  return (
    <>
      <a class="skip" href="#main">
        Skip to content
      </a>
      <header class="top">
        <strong class="brand">Mailcast</strong>
        <nav aria-label="Main">
          {can('broadcasts_read') && <NavLink href="/broadcasts">Broadcasts</NavLink>}
          {can('subscribers_read') && <NavLink href="/subscribers">Subscribers</NavLink>}
          {can('subscribers_read') && <NavLink href="/topics">Topics</NavLink>}
          {can('segments_read') && <NavLink href="/segments">Segments</NavLink>}
          {can('sequences_read') && <NavLink href="/sequences">Sequences</NavLink>}
          {can('opt_in_forms_read') && <NavLink href="/forms">Forms</NavLink>}
          {can('templates_read') && <NavLink href="/templates">Templates</NavLink>}
          {can('webhook_endpoints_read') && <NavLink href="/webhooks">Webhooks</NavLink>}
          {can('suppressions_read') && <NavLink href="/suppressions">Suppressions</NavLink>}
          {can('transactionals_read') && <NavLink href="/transactionals">Transactionals</NavLink>}
          {can('email_servers_read') && <NavLink href="/email-servers">Email servers</NavLink>}
          {can('channel_settings_read') && <NavLink href="/settings">Settings</NavLink>}
          {team.users && <NavLink href="/users">Users</NavLink>}
          {team.audit && <NavLink href="/audit-log">Audit log</NavLink>}
        </nav>
        <ChannelSwitcher />
        {user && (
          <nav aria-label="Account" class="account">
            <span class="who">{user.email}</span>
            <NavLink href="/two-factor">Two-factor</NavLink>
            <NavLink href="/sessions">Sessions</NavLink>
          </nav>
        )}
        <button type="button" onClick={account.signOut}>
          Sign out
        </button>
      </header>
      {/* Keyed by channel: a switch remounts the pages, so nothing of the last channel stays on screen. */}
      <main id="main" tabIndex={-1} key={identity.channel?.id ?? 0}>
        <Switch>
          <Route path="/broadcasts" component={Broadcasts} />
          <Route path="/broadcasts/new" component={BroadcastForm} />
          <Route path="/broadcasts/:id/edit" component={BroadcastForm} />
          <Route path="/broadcasts/:id/statistics" component={Statistics} />
          <Route path="/broadcasts/:id" component={BroadcastPage} />
          <Route path="/subscribers" component={Subscribers} />
          <Route path="/subscribers/show" component={SubscriberPage} />
          <Route path="/sequences" component={Sequences} />
          <Route path="/sequences/:id" component={SequencePage} />
          <Route path="/topics" component={Topics} />
          <Route path="/segments" component={Segments} />
          <Route path="/segments/new" component={NewSegment} />
          <Route path="/segments/:id" component={SegmentPage} />
          <Route path="/forms" component={Forms} />
          <Route path="/forms/:id" component={FormPage} />
          <Route path="/templates" component={Templates} />
          <Route path="/templates/new" component={TemplateEditor} />
          <Route path="/templates/:id" component={TemplateEditor} />
          <Route path="/webhooks" component={Webhooks} />
          <Route path="/webhooks/:id" component={WebhookPage} />
          <Route path="/suppressions" component={Suppressions} />
          <Route path="/suppressions/global" component={Suppressions} />
          <Route path="/transactionals" component={Transactionals} />
          <Route path="/transactionals/:id" component={TransactionalPage} />
          <Route path="/email-servers" component={EmailServers} />
          {can('email_servers_write') && <Route path="/email-servers/new" component={NewEmailServer} />}
          <Route path="/email-servers/:id" component={EmailServerPage} />
          <Route path="/settings" component={Settings} />
          {team.users && <Route path="/users" component={Users} />}
          {team.users && <Route path="/users/:id" component={UserPage} />}
          {team.audit && <Route path="/audit-log" component={AuditLog} />}
          {user && <Route path="/two-factor" component={TwoFactor} />}
          {user && <Route path="/sessions" component={Sessions} />}
          <Route path="/">
            <Redirect to={startPage(can, team, user !== undefined)} replace />
          </Route>
          <Route path="/sign-in">
            <Redirect to="/" replace />
          </Route>
          <Route>
            <h1>Not found</h1>
            <p>
              This page does not exist. <Link href="/">Go to the start page.</Link>
            </p>
          </Route>
        </Switch>
      </main>
    </>
  );
}

/** Where the tab is in signing in: the sign-in pages, a second factor, forced enrolment, or in. */
type Phase =
  | { kind: 'restoring' }
  | { kind: 'signed-out' }
  | { kind: 'second-factor' }
  | { kind: 'enrol'; email: string }
  | { kind: 'in'; identity: Identity; session?: SessionState };

/** The channel a user picked last in this tab (sessionStorage: a preference, not a secret). */
const CHANNEL_KEY = 'mailcast.channel';

/**
 * What a page opened signed in asks before its first render, as its script starts
 * (docs/dashboard.md, "Restoring a session"): with a token, whoami; with the session hint,
 * `GET /auth/session` and whoami at once. One round trip before the page's own calls, started
 * without waiting for a render.
 */
type Restore = { kind: 'token'; identity: Promise<Identity> } | { kind: 'session'; session: Promise<SessionState>; who: ReturnType<typeof earlyWhoami> };
function startRestore(): Restore | undefined {
  const token = tokenStore.get();
  if (token !== null) {
    const identity = whoami(token);
    identity.catch(() => undefined); // handled where it is awaited
    return { kind: 'token', identity };
  }
  if (!sessionHint.get()) return undefined;
  const saved = Number(sessionStorage.getItem(CHANNEL_KEY));
  const session = authApi<SessionState>('GET', '/session');
  session.catch(() => undefined); // handled where it is awaited
  return { kind: 'session', session, who: earlyWhoami(Number.isInteger(saved) && saved > 0 ? saved : null) };
}
/** Used once, by the first restore; later ones ask afresh. */
let restoring = startRestore();
function takeRestore<K extends Restore['kind']>(kind: K): Extract<Restore, { kind: K }> | undefined {
  const taken = restoring;
  restoring = undefined;
  return taken?.kind === kind ? (taken as Extract<Restore, { kind: K }>) : undefined;
}

function App() {
  const [phase, setPhase] = useState<Phase>(tokenStore.get() !== null || sessionHint.get() ? { kind: 'restoring' } : { kind: 'signed-out' });
  const [error, setError] = useState<string | undefined>(undefined);
  const sessionRef = useRef<SessionState | undefined>(undefined);

  function forget() {
    tokenStore.clear();
    sessionHint.clear();
    sessionStorage.removeItem(CHANNEL_KEY);
    sessionRef.current = undefined;
    setCredentials({ kind: 'token' });
    setPhase({ kind: 'signed-out' });
  }

  function signOut() {
    if (sessionRef.current !== undefined) void authApi('POST', '/sign_out').catch(() => undefined);
    forget();
    // The next sign-in (maybe someone else's) starts at the start page, not where this one ended.
    history.replaceState(null, '', '/app/');
  }

  /** Reads /auth/session and goes where it says: the second factor, enrolment, or the pages of a channel. */
  async function enterSession(known?: SessionState): Promise<void> {
    const early = known === undefined ? takeRestore('session') : undefined;
    const state = known ?? (await (early?.session ?? authApi<SessionState>('GET', '/session')));
    sessionHint.set();
    sessionRef.current = state;
    if (state.two_factor_required) {
      setCredentials({ kind: 'session', csrf: state.csrf_token, channelId: null });
      setPhase({ kind: 'second-factor' });
      return;
    }
    if (state.two_factor_enrolment_required) {
      setCredentials({ kind: 'session', csrf: state.csrf_token, channelId: null });
      setPhase({ kind: 'enrol', email: state.user.email });
      return;
    }
    const full = state.channels === undefined ? await authApi<SessionState>('GET', '/session') : state;
    sessionRef.current = full;
    const channels = [...(full.channels ?? [])].sort((a, b) => a.id - b.id);
    const saved = Number(sessionStorage.getItem(CHANNEL_KEY));
    const channelId = channels.find((c) => c.id === saved)?.id ?? channels[0]?.id ?? null;
    setCredentials({ kind: 'session', csrf: full.csrf_token, channelId });
    setPhase({ kind: 'in', identity: await sessionIdentity({ ...full, channels }, channelId, await early?.who), session: full });
  }

  const account: Account = {
    async switchChannel(id: number) {
      const session = sessionRef.current;
      if (!session) return;
      sessionStorage.setItem(CHANNEL_KEY, String(id));
      setCredentials({ kind: 'session', csrf: session.csrf_token, channelId: id });
      try {
        setPhase({ kind: 'in', identity: await sessionIdentity(session, id), session });
      } catch (e) {
        setError(errorMessage(e));
      }
    },
    refresh: () => enterSession(),
    signOut,
  };

  useEffect(() => {
    whenUnauthorized(() => {
      const wasSession = sessionRef.current !== undefined;
      forget();
      setError(wasSession ? 'Your session has ended: sign in again.' : 'The API refused the token (signed out): sign in again.');
    });
    const saved = tokenStore.get();
    if (saved !== null) {
      (takeRestore('token')?.identity ?? whoami(saved))
        .then((identity) => setPhase({ kind: 'in', identity }))
        .catch((e: unknown) => {
          forget();
          setError(errorMessage(e));
        });
      return;
    }
    if (!sessionHint.get()) return;
    // Signed in with a password before: the cookie (HttpOnly) says whether that session still lives.
    enterSession().catch(() => forget());
  }, []);

  if (phase.kind === 'restoring') return <Loading />;
  if (phase.kind === 'signed-out') {
    return (
      <>
        {error && <ErrorMessage message={error} />}
        <Router base="/app">
          <Switch>
            <Route path="/forgot-password" component={ForgotPassword} />
            <Route path="/reset-password" component={ResetPassword} />
            <Route>
              <SignIn
                onSignedIn={(token, who) => {
                  tokenStore.set(token);
                  setCredentials({ kind: 'token' });
                  setError(undefined);
                  setPhase({ kind: 'in', identity: who });
                }}
                onSession={async (state) => {
                  setError(undefined);
                  await enterSession(state);
                }}
              />
            </Route>
          </Switch>
        </Router>
      </>
    );
  }
  if (phase.kind === 'second-factor') return <TwoFactorStep onPassed={() => enterSession()} onCancel={signOut} />;
  if (phase.kind === 'enrol') return <RequiredEnrolment email={phase.email} onDone={() => enterSession()} onSignOut={signOut} />;
  return (
    <SessionContext.Provider value={phase.identity}>
      <AccountContext.Provider value={account}>
        <Router base="/app">
          <Layout />
        </Router>
      </AccountContext.Provider>
    </SessionContext.Provider>
  );
}

render(<App />, document.getElementById('root')!);
