import 'uplot/dist/uPlot.min.css';
import './styles.css';
import { render } from 'preact';
import { useEffect, useState } from 'preact/hooks';
import { Link, Redirect, Route, Router, Switch, useRoute } from 'wouter-preact';
import { tokenStore, whenUnauthorized, whoami, type Identity } from './api';
import { ErrorMessage, Loading } from './components';
import { errorMessage } from './hooks';
import { BroadcastPage } from './pages/broadcast';
import { BroadcastForm } from './pages/broadcast-form';
import { Broadcasts } from './pages/broadcasts';
import { FormPage } from './pages/form';
import { Forms } from './pages/forms';
import { SequencePage } from './pages/sequence';
import { Sequences } from './pages/sequences';
import { SignIn } from './pages/sign-in';
import { Statistics } from './pages/statistics';
import { SubscriberPage } from './pages/subscriber';
import { Subscribers } from './pages/subscribers';
import { Topics } from './pages/topics';
import { WebhookPage } from './pages/webhook';
import { Webhooks } from './pages/webhooks';
import { SessionContext, useCan, useIdentity } from './session';

function NavLink({ href, children }: { href: string; children: string }) {
  const [active] = useRoute(`${href}/*?`);
  return (
    <Link href={href} aria-current={active ? 'page' : undefined}>
      {children}
    </Link>
  );
}

function Layout({ onSignOut }: { onSignOut(): void }) {
  const identity = useIdentity();
  const can = useCan();
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
          {can('sequences_read') && <NavLink href="/sequences">Sequences</NavLink>}
          {can('opt_in_forms_read') && <NavLink href="/forms">Forms</NavLink>}
          {can('webhook_endpoints_read') && <NavLink href="/webhooks">Webhooks</NavLink>}
        </nav>
        <span class="who">Channel: {identity.channel.name}</span>
        <button type="button" onClick={onSignOut}>
          Sign out
        </button>
      </header>
      <main id="main" tabIndex={-1}>
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
          <Route path="/forms" component={Forms} />
          <Route path="/forms/:id" component={FormPage} />
          <Route path="/webhooks" component={Webhooks} />
          <Route path="/webhooks/:id" component={WebhookPage} />
          <Route path="/">
            <Redirect
              to={can('broadcasts_read') ? '/broadcasts' : can('subscribers_read') ? '/subscribers' : can('sequences_read') ? '/sequences' : '/webhooks'}
              replace
            />
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

function App() {
  const [identity, setIdentity] = useState<Identity | null>(null);
  const [restoring, setRestoring] = useState(tokenStore.get() !== null);
  const [error, setError] = useState<string | undefined>(undefined);

  function signOut() {
    tokenStore.clear();
    setIdentity(null);
  }

  useEffect(() => {
    whenUnauthorized(() => {
      signOut();
      setError('The API refused the token (signed out): sign in again.');
    });
    const saved = tokenStore.get();
    if (saved === null) return;
    whoami(saved)
      .then(setIdentity)
      .catch((e: unknown) => {
        tokenStore.clear();
        setError(errorMessage(e));
      })
      .finally(() => setRestoring(false));
  }, []);

  if (restoring) return <Loading />;
  if (!identity) {
    return (
      <>
        {error && <ErrorMessage message={error} />}
        <SignIn
          onSignedIn={(token, who) => {
            tokenStore.set(token);
            setError(undefined);
            setIdentity(who);
          }}
        />
      </>
    );
  }
  return (
    <SessionContext.Provider value={identity}>
      <Router base="/app">
        <Layout onSignOut={signOut} />
      </Router>
    </SessionContext.Provider>
  );
}

render(<App />, document.getElementById('root')!);
