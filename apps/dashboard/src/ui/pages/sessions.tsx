import { authApi } from '../api';
import { ErrorMessage, Feedback, formatTime, Loading } from '../components';
import { useAction, useResource } from '../hooks';
import { useAccount } from '../session';

interface UserSessionRow {
  id: number;
  created_at: string;
  last_seen_at: string;
  ip: string | null;
  user_agent: string | null;
  current: boolean;
}

/** The signed-in user's live sessions (12 h idle ends one), each revocable; this one ends by signing out. */
export function Sessions() {
  const list = useResource(() => authApi<{ data: UserSessionRow[] }>('GET', '/sessions'), []);
  const action = useAction();
  const account = useAccount();

  async function revoke(s: UserSessionRow) {
    if (!confirm('End this session? That browser is signed out.')) return;
    if (await action.run(() => authApi('DELETE', `/sessions/${s.id}`), 'Session ended.')) list.reload();
  }

  return (
    <section>
      <h1>Sessions</h1>
      <p class="muted">Where you are signed in. A session ends after 12 hours without use, when you sign out, or when your password changes.</p>
      <Feedback action={action} />
      {list.error && <ErrorMessage message={list.error} />}
      {list.loading && !list.data && <Loading />}
      {list.data && (
        <div class="table-wrap">
          <table class="sessions">
            <thead>
              <tr>
                <th scope="col">Signed in</th>
                <th scope="col">Last used</th>
                <th scope="col">Address</th>
                <th scope="col">Browser</th>
                <th scope="col">
                  <span class="visually-hidden">Actions</span>
                </th>
              </tr>
            </thead>
            <tbody>
              {list.data.data.map((s) => (
                <tr key={s.id} data-session={s.id}>
                  <td>
                    {formatTime(s.created_at)} {s.current && <span class="badge badge-on">this session</span>}
                  </td>
                  <td>{formatTime(s.last_seen_at)}</td>
                  <td>{s.ip ?? '—'}</td>
                  <td class="small clip">{s.user_agent ?? '—'}</td>
                  <td>
                    {s.current ? (
                      <button type="button" onClick={account.signOut}>
                        Sign out
                      </button>
                    ) : (
                      <button type="button" class="danger" disabled={action.busy} onClick={() => void revoke(s)}>
                        Revoke
                      </button>
                    )}
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
    </section>
  );
}
