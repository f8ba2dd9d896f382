import { useState } from 'preact/hooks';
import { Link } from 'wouter-preact';
import { api } from '../api';
import { Empty, ErrorMessage, Feedback, Field, formatTime, Loading, Pager } from '../components';
import { useAction, useResource } from '../hooks';
import { useCan, useIdentity } from '../session';

/** A user as /api/v1/users answers it (docs/teams.md, Users). */
export interface User {
  id: number;
  email: string;
  first_name: string | null;
  last_name: string | null;
  active: boolean;
  locked: boolean;
  sudo: boolean;
  two_factor_enabled: boolean;
  last_login_at: string | null;
  created_at: string;
}
const LIMIT = 50;

export function userStatus(u: User): string {
  if (!u.active) return 'inactive';
  return u.locked ? 'locked' : 'active';
}

/** May this signed-in user change users? users_write comes with user_management (or sudo). */
export function useUsersWritable(): boolean {
  const can = useCan();
  const { user } = useIdentity();
  return can('users_write') || user?.sudo === true || user?.system_permissions.user_management === true;
}

/** Users: the list (search, status, pages), activate/deactivate, and a new user's form. */
export function Users() {
  const writable = useUsersWritable();
  const { user: me } = useIdentity();
  const [q, setQ] = useState('');
  const [status, setStatus] = useState('');
  const [filters, setFilters] = useState({ q: '', status: '' });
  const [offset, setOffset] = useState(0);
  const list = useResource(() => api<{ data: User[]; total: number }>('GET', '/users', { query: { ...filters, limit: LIMIT, offset } }), [filters, offset]);
  const action = useAction();

  async function setActive(u: User, active: boolean) {
    const verb = active ? 'activate' : 'deactivate';
    if (!active && !confirm(`Deactivate ${u.email}? They are signed out everywhere and cannot sign in.`)) return;
    if (await action.run(() => api('POST', `/users/${u.id}/${verb}`), `${u.email} ${active ? 'activated' : 'deactivated'}.`)) list.reload();
  }

  return (
    <section>
      <h1>Users</h1>
      <form
        class="filters"
        role="search"
        onSubmit={(e) => {
          e.preventDefault();
          setFilters({ q, status });
          setOffset(0);
        }}
      >
        <Field label="Email or name">
          <input type="search" name="users_q" value={q} onInput={(e) => setQ(e.currentTarget.value)} />
        </Field>
        <Field label="Status">
          <select name="users_status" value={status} onChange={(e) => setStatus(e.currentTarget.value)}>
            <option value="">Any</option>
            <option value="active">Active</option>
            <option value="inactive">Inactive</option>
          </select>
        </Field>
        <div class="actions">
          <button type="submit" class="primary">
            Search
          </button>
        </div>
      </form>
      <Feedback action={action} />
      {list.error && <ErrorMessage message={list.error} />}
      {list.loading && !list.data && <Loading />}
      {list.data && list.data.data.length === 0 && <Empty>No user matches.</Empty>}
      {list.data && list.data.data.length > 0 && (
        <div class="table-wrap">
          <table class="users">
            <thead>
              <tr>
                <th scope="col">Email</th>
                <th scope="col">Name</th>
                <th scope="col">Status</th>
                <th scope="col">Two-factor</th>
                <th scope="col">Last sign-in</th>
                <th scope="col">
                  <span class="visually-hidden">Actions</span>
                </th>
              </tr>
            </thead>
            <tbody>
              {list.data.data.map((u) => (
                <tr key={u.id} data-user={u.email}>
                  <td>
                    <Link href={`/users/${u.id}`}>{u.email}</Link> {u.sudo && <span class="badge">sudo</span>}
                  </td>
                  <td>{[u.first_name, u.last_name].filter(Boolean).join(' ')}</td>
                  <td data-status>{userStatus(u)}</td>
                  <td>{u.two_factor_enabled ? 'on' : 'off'}</td>
                  <td class="small">{formatTime(u.last_login_at)}</td>
                  <td>
                    {/* Sudo users are changed only by the admin CLI; nobody deactivates themselves here. */}
                    {writable && !u.sudo && u.id !== me?.id && (
                      <button type="button" class={u.active ? 'danger' : undefined} disabled={action.busy} onClick={() => void setActive(u, !u.active)}>
                        {u.active ? 'Deactivate' : 'Activate'}
                      </button>
                    )}
                    {writable && u.active && u.locked && !u.sudo && (
                      <button type="button" disabled={action.busy} onClick={() => void setActive(u, true)}>
                        Unlock
                      </button>
                    )}
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
      {list.data && <Pager offset={offset} limit={LIMIT} count={list.data.data.length} total={list.data.total} onChange={setOffset} />}
      {writable && <NewUser onCreated={list.reload} />}
    </section>
  );
}

function NewUser({ onCreated }: { onCreated(): void }) {
  const [email, setEmail] = useState('');
  const [firstName, setFirstName] = useState('');
  const [lastName, setLastName] = useState('');
  const [password, setPassword] = useState('');
  const [sendReset, setSendReset] = useState(true);
  const action = useAction();

  async function submit(event: Event) {
    event.preventDefault();
    const user = {
      email,
      ...(firstName ? { first_name: firstName } : {}),
      ...(lastName ? { last_name: lastName } : {}),
      ...(sendReset ? { send_password_reset: true } : { password }),
    };
    const done = sendReset ? `${email} created: a link to set a password is on its way.` : `${email} created.`;
    if (await action.run(() => api('POST', '/users', { body: { user } }), done)) {
      setEmail('');
      setFirstName('');
      setLastName('');
      setPassword('');
      onCreated();
    }
  }

  return (
    <form class="panel stack" method="post" onSubmit={submit} autocomplete="off">
      <h2>New user</h2>
      <div class="row">
        <Field label="Email">
          <input type="email" name="new_user_email" required value={email} onInput={(e) => setEmail(e.currentTarget.value)} />
        </Field>
        <Field label="First name">
          <input name="new_user_first_name" value={firstName} onInput={(e) => setFirstName(e.currentTarget.value)} />
        </Field>
        <Field label="Last name">
          <input name="new_user_last_name" value={lastName} onInput={(e) => setLastName(e.currentTarget.value)} />
        </Field>
      </div>
      <label class="inline">
        <input type="checkbox" name="new_user_send_reset" checked={sendReset} onChange={(e) => setSendReset(e.currentTarget.checked)} /> Email them a link to
        set their password (valid two hours)
      </label>
      {!sendReset && (
        <Field label="Password" hint="At least 12 characters; tell it to them another way.">
          <input
            type="password"
            name="new_user_password"
            autocomplete="new-password"
            required
            value={password}
            onInput={(e) => setPassword(e.currentTarget.value)}
          />
        </Field>
      )}
      <p class="muted small">A new user has no channel: give them one on their page.</p>
      <Feedback action={action} />
      <div class="actions">
        <button type="submit" class="primary" disabled={action.busy}>
          Create user
        </button>
      </div>
    </form>
  );
}
