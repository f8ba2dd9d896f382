import { useState } from 'preact/hooks';
import { Link, useParams } from 'wouter-preact';
import { api } from '../api';
import { ErrorMessage, Feedback, Field, formatTime, Loading } from '../components';
import { useAction, useResource } from '../hooks';
import { useIdentity } from '../session';
import { userStatus, useUsersWritable, type User } from './users';

/**
 * The 37 channel flags (docs/teams.md, Channel permissions): `_read`/`_write` per area, then the
 * actions. The API names them in every permission it answers; this list orders a new grant's form.
 */
const AREAS = [
  'subscribers',
  'broadcasts',
  'sequences',
  'autopilot',
  'templates',
  'segments',
  'tokens',
  'file_assets',
  'transactionals',
  'opt_in_forms',
  'global_suppressions',
  'channel_settings',
  'email_servers',
  'esp_integrations',
  'sender_details',
];
const ACTIONS = [
  'subscribers_import',
  'subscribers_export',
  'broadcasts_send',
  'broadcasts_duplicate',
  'sequences_subscribers',
  'templates_duplicate',
  'tokens_refresh',
];
export const CHANNEL_FLAGS = [...AREAS.flatMap((a) => [`${a}_read`, `${a}_write`]), ...ACTIONS];
const ROLES = ['Viewer', 'Editor', 'Manager'];

interface ChannelPermission {
  broadcast_channel_id: number;
  broadcast_channel_name: string;
  role: string;
  permissions: Record<string, boolean>;
}
interface UserDetail extends User {
  system_permissions: Record<string, boolean>;
  channel_permissions: ChannelPermission[];
}
interface Answer {
  warnings?: Array<{ message?: string }>;
}

function warningsOf(answer: Answer | undefined): string | undefined {
  const messages = (answer?.warnings ?? []).map((w) => w.message).filter(Boolean);
  return messages.length > 0 ? messages.join(' ') : undefined;
}

/** One user: details, activate/deactivate, and their role (or custom flags) in each channel. */
export function UserPage() {
  const { id } = useParams<{ id: string }>();
  const writable = useUsersWritable();
  const { user: me, channels } = useIdentity();
  const detail = useResource(() => api<UserDetail>('GET', `/users/${id}`), [id]);
  const action = useAction();
  const u = detail.data;

  async function setActive(active: boolean) {
    if (!u) return;
    if (await action.run(() => api('POST', `/users/${u.id}/${active ? 'activate' : 'deactivate'}`), active ? 'Activated.' : 'Deactivated.')) detail.reload();
  }

  if (detail.error) return <ErrorMessage message={detail.error} />;
  if (!u) return <Loading />;
  const editable = writable && !u.sudo;
  const granted = new Set(u.channel_permissions.map((p) => p.broadcast_channel_id));
  const addable = (channels ?? []).filter((c) => !granted.has(c.id));

  return (
    <section>
      <p>
        <Link href="/users">← Users</Link>
      </p>
      <h1>{u.email}</h1>
      <dl class="facts">
        <dt>Name</dt>
        <dd>{[u.first_name, u.last_name].filter(Boolean).join(' ') || '—'}</dd>
        <dt>Status</dt>
        <dd data-status>{userStatus(u)}</dd>
        <dt>Two-factor</dt>
        <dd>{u.two_factor_enabled ? 'on' : 'off'}</dd>
        <dt>Last sign-in</dt>
        <dd>{formatTime(u.last_login_at)}</dd>
        <dt>User management</dt>
        <dd>{u.sudo ? 'yes (sudo)' : u.system_permissions.user_management ? 'yes' : 'no'}</dd>
      </dl>
      {u.sudo && <p class="muted">A sudo user may do everything everywhere; only the admin CLI changes one.</p>}
      <Feedback action={action} />
      {editable && u.id !== me?.id && (
        <div class="actions">
          {u.active ? (
            <button type="button" class="danger" disabled={action.busy} onClick={() => void setActive(false)}>
              Deactivate
            </button>
          ) : (
            <button type="button" disabled={action.busy} onClick={() => void setActive(true)}>
              Activate
            </button>
          )}
          {u.active && u.locked && (
            <button type="button" disabled={action.busy} onClick={() => void setActive(true)}>
              Unlock
            </button>
          )}
        </div>
      )}
      <h2>Channels</h2>
      {u.channel_permissions.length === 0 && <p class="muted">No channel yet.</p>}
      {u.channel_permissions.map((p) => (
        <ChannelGrant key={p.broadcast_channel_id} userId={u.id} grant={p} editable={editable} onChanged={detail.reload} />
      ))}
      {editable && addable.length > 0 && <AddChannel key={addable.map((c) => c.id).join()} userId={u.id} channels={addable} onAdded={detail.reload} />}
    </section>
  );
}

/** A role select (Viewer, Editor, Manager, Custom); Custom shows the flags. Saved with one PUT. */
function GrantEditor({
  role,
  flags,
  onRole,
  onFlags,
  idPrefix,
}: {
  role: string;
  flags: Record<string, boolean>;
  onRole(role: string): void;
  onFlags(flags: Record<string, boolean>): void;
  idPrefix: string;
}) {
  const custom = !ROLES.includes(role);
  return (
    <>
      <Field label="Role">
        <select name={`${idPrefix}_role`} value={custom ? 'Custom' : role} onChange={(e) => onRole(e.currentTarget.value)}>
          {ROLES.map((r) => (
            <option key={r} value={r}>
              {r}
            </option>
          ))}
          <option value="Custom">Custom</option>
        </select>
      </Field>
      {custom && (
        <fieldset class="flags">
          <legend>Permissions</legend>
          {CHANNEL_FLAGS.map((flag) => (
            <label key={flag} class="inline">
              <input
                type="checkbox"
                name={`${idPrefix}_flag`}
                value={flag}
                checked={flags[flag] === true}
                onChange={(e) => onFlags({ ...flags, [flag]: e.currentTarget.checked })}
              />{' '}
              {flag.replace(/_/g, ' ')}
            </label>
          ))}
        </fieldset>
      )}
    </>
  );
}

function grantBody(role: string, flags: Record<string, boolean>) {
  // A role by name, else the flags (unnamed ones false); the API turns on a write's read and says so.
  return ROLES.includes(role) ? { role } : { permissions: Object.fromEntries(CHANNEL_FLAGS.map((f) => [f, flags[f] === true])) };
}

function ChannelGrant({ userId, grant, editable, onChanged }: { userId: number; grant: ChannelPermission; editable: boolean; onChanged(): void }) {
  const [role, setRole] = useState(grant.role);
  const [flags, setFlags] = useState(grant.permissions);
  const action = useAction();
  const channelId = grant.broadcast_channel_id;

  async function save(event: Event) {
    event.preventDefault();
    let answer: Answer | undefined;
    const ok = await action.run(
      async () => (answer = await api<Answer>('PUT', `/users/${userId}/channel_permissions/${channelId}`, { body: grantBody(role, flags) })),
      () => warningsOf(answer) ?? 'Saved.',
    );
    if (ok) onChanged();
  }
  async function remove() {
    if (!confirm(`Remove access to ${grant.broadcast_channel_name}?`)) return;
    if (await action.run(() => api('DELETE', `/users/${userId}/channel_permissions/${channelId}`))) onChanged();
  }

  return (
    <form
      class="panel stack"
      method="post"
      onSubmit={save}
      data-channel={grant.broadcast_channel_name}
      aria-label={`Access to ${grant.broadcast_channel_name}`}
    >
      <h3>
        {grant.broadcast_channel_name} <span class="badge">{grant.role}</span>
      </h3>
      {editable && (
        <>
          <GrantEditor
            role={role}
            flags={flags}
            onRole={(r) => {
              setRole(r);
              if (r === 'Custom') setFlags(grant.permissions);
            }}
            onFlags={setFlags}
            idPrefix={`grant_${channelId}`}
          />
          <Feedback action={action} />
          <div class="actions">
            <button type="submit" class="primary" disabled={action.busy}>
              Save
            </button>
            <button type="button" class="danger" disabled={action.busy} onClick={() => void remove()}>
              Remove access
            </button>
          </div>
        </>
      )}
    </form>
  );
}

function AddChannel({ userId, channels, onAdded }: { userId: number; channels: ReadonlyArray<{ id: number; name: string }>; onAdded(): void }) {
  const [channelId, setChannelId] = useState(String(channels[0]!.id));
  const [role, setRole] = useState('Viewer');
  const [flags, setFlags] = useState<Record<string, boolean>>({});
  const action = useAction();
  async function submit(event: Event) {
    event.preventDefault();
    let answer: Answer | undefined;
    const ok = await action.run(
      async () => (answer = await api<Answer>('PUT', `/users/${userId}/channel_permissions/${channelId}`, { body: grantBody(role, flags) })),
      () => warningsOf(answer) ?? 'Access given.',
    );
    if (ok) onAdded();
  }
  return (
    <form class="panel stack" method="post" onSubmit={submit}>
      <h3>Give access to a channel</h3>
      <Field label="Channel">
        <select name="add_channel" value={channelId} onChange={(e) => setChannelId(e.currentTarget.value)}>
          {channels.map((c) => (
            <option key={c.id} value={String(c.id)}>
              {c.name}
            </option>
          ))}
        </select>
      </Field>
      <GrantEditor role={role} flags={flags} onRole={setRole} onFlags={setFlags} idPrefix="add" />
      <Feedback action={action} />
      <div class="actions">
        <button type="submit" class="primary" disabled={action.busy}>
          Give access
        </button>
      </div>
    </form>
  );
}
