import { useState } from 'preact/hooks';
import { api, type Schemas } from '../api';
import { ErrorMessage, Feedback, Loading } from '../components';
import { CheckedField, NO_REFUSAL, refusalOf, type Refusal } from '../field-errors';
import { useAction, useResource } from '../hooks';
import { useCan } from '../session';

type ChannelSettings = Schemas['ChannelSettings'];
type ChannelDesign = Schemas['ChannelDesign'];

/** The form's text, as typed: numbers are parsed only when sent, so the API judges them. */
interface Draft {
  sender_email: string;
  sender_name: string;
  enabled: boolean;
  min_sent: string;
  max_hard_bounce_rate: string;
  max_complaint_rate: string;
}

const FIELDS = [
  'sender_email',
  'sender_name',
  'reputation_guard.enabled',
  'reputation_guard.min_sent',
  'reputation_guard.max_hard_bounce_rate',
  'reputation_guard.max_complaint_rate',
] as const;

function draftOf(s: ChannelSettings): Draft {
  const g = s.reputation_guard;
  return {
    sender_email: s.sender_email ?? '',
    sender_name: s.sender_name ?? '',
    enabled: g.enabled,
    min_sent: String(g.min_sent),
    max_hard_bounce_rate: String(g.max_hard_bounce_rate),
    max_complaint_rate: String(g.max_complaint_rate),
  };
}

/** A typed number goes as a number; anything else goes as typed, and the API names the field. */
const numberOr = (text: string): number | string => (text.trim() !== '' && Number.isFinite(Number(text)) ? Number(text) : text);

function bodyOf(d: Draft): Schemas['ChannelSettingsInput'] {
  return {
    sender_email: d.sender_email,
    sender_name: d.sender_name,
    reputation_guard: {
      enabled: d.enabled,
      min_sent: numberOr(d.min_sent) as number,
      max_hard_bounce_rate: numberOr(d.max_hard_bounce_rate) as number,
      max_complaint_rate: numberOr(d.max_complaint_rate) as number,
    },
  };
}

/**
 * The channel's settings (docs/dashboard.md, "Channel settings"): its sender and the reputation
 * guard (docs/reputation-guard.md), written with one PATCH; and the brand kit, read-only here
 * (docs/brand-kit.md: the admin CLI sets it).
 */
export function Settings() {
  const can = useCan();
  const settings = useResource(() => api<ChannelSettings>('GET', '/channel/settings'), []);
  return (
    <section>
      <h1>Channel settings</h1>
      {settings.error && <ErrorMessage message={settings.error} />}
      {settings.loading && !settings.data && <Loading />}
      {settings.data && <SettingsForm key={JSON.stringify(settings.data)} initial={settings.data} writable={can('channel_settings_write')} />}
      {can('templates_read') && <BrandKit />}
    </section>
  );
}

function SettingsForm({ initial, writable }: { initial: ChannelSettings; writable: boolean }) {
  const [draft, setDraft] = useState(() => draftOf(initial));
  const [refusal, setRefusal] = useState<Refusal>(NO_REFUSAL);
  const action = useAction();
  const set = (patch: Partial<Draft>) => setDraft({ ...draft, ...patch });

  async function submit(event: Event) {
    event.preventDefault();
    setRefusal(NO_REFUSAL);
    await action.run(async () => {
      try {
        const saved = await api<ChannelSettings>('PATCH', '/channel/settings', { body: bodyOf(draft) });
        setDraft(draftOf(saved));
      } catch (e) {
        const split = refusalOf(e, FIELDS);
        setRefusal(split);
        // Field messages show beside their fields; the form's notice names what is left, or says to look there.
        throw new Error(split.message ?? 'The settings were not saved: see the messages beside the fields.');
      }
    }, 'Settings saved.');
  }

  return (
    <form class="stack settings" onSubmit={submit} aria-label="Channel settings" noValidate>
      <fieldset class="panel stack" disabled={!writable}>
        <legend>Sender</legend>
        <p class="muted">The address and name email goes out from when the sending email server sets none.</p>
        <CheckedField label="Sender email" name="sender_email" refusal={refusal}>
          {(a) => <input {...a} type="email" value={draft.sender_email} onInput={(e) => set({ sender_email: e.currentTarget.value })} />}
        </CheckedField>
        <CheckedField label="Sender name" name="sender_name" refusal={refusal}>
          {(a) => <input {...a} value={draft.sender_name} onInput={(e) => set({ sender_name: e.currentTarget.value })} />}
        </CheckedField>
      </fieldset>
      <fieldset class="panel stack" disabled={!writable}>
        <legend>Reputation guard</legend>
        <p class="muted">
          A sending broadcast that crosses a limit pauses itself until someone resumes it; an email server whose last 24 hours cross one leaves rotation.
          Nothing is judged before the minimum number of emails went out.
        </p>
        <label class="inline">
          <input type="checkbox" name="reputation_guard.enabled" checked={draft.enabled} onChange={(e) => set({ enabled: e.currentTarget.checked })} /> Guard on
        </label>
        <CheckedField label="Judge after this many emails sent" name="reputation_guard.min_sent" refusal={refusal}>
          {(a) => <input {...a} inputMode="numeric" value={draft.min_sent} onInput={(e) => set({ min_sent: e.currentTarget.value })} />}
        </CheckedField>
        <CheckedField label="Highest hard bounce rate (%)" name="reputation_guard.max_hard_bounce_rate" refusal={refusal}>
          {(a) => <input {...a} inputMode="decimal" value={draft.max_hard_bounce_rate} onInput={(e) => set({ max_hard_bounce_rate: e.currentTarget.value })} />}
        </CheckedField>
        <CheckedField label="Highest complaint rate (%)" name="reputation_guard.max_complaint_rate" refusal={refusal}>
          {(a) => <input {...a} inputMode="decimal" value={draft.max_complaint_rate} onInput={(e) => set({ max_complaint_rate: e.currentTarget.value })} />}
        </CheckedField>
      </fieldset>
      <Feedback action={action} />
      {writable && (
        <div class="actions">
          <button type="submit" class="primary" disabled={action.busy}>
            Save settings
          </button>
        </div>
      )}
    </form>
  );
}

/** The brand kit as templates see it; each colour with a swatch (set through the CSSOM, which the CSP allows). */
function BrandKit() {
  const design = useResource(() => api<ChannelDesign>('GET', '/channel/design'), []);
  const kit = design.data;
  return (
    <section class="panel stack brand-kit" aria-labelledby="brand-kit-title">
      <h2 id="brand-kit-title">Brand kit</h2>
      <p class="muted">
        What templates and forms draw with. Set it with the admin CLI: <code>channel design --channel ID --file kit.json</code>.
      </p>
      {design.error && <ErrorMessage message={design.error} />}
      {kit && (
        <dl class="brand-kit-list">
          {Object.entries(kit.colors).map(([name, value]) => (
            <div key={name}>
              <dt>{name.replace(/_/g, ' ')}</dt>
              <dd>
                <span class="swatch" aria-hidden="true" style={{ backgroundColor: value }} /> <code>{value}</code>
              </dd>
            </div>
          ))}
          <div>
            <dt>font</dt>
            <dd>
              {kit.typography.font} <span class="muted">({kit.typography.font_stack})</span>
            </dd>
          </div>
          <div>
            <dt>layout</dt>
            <dd>
              {kit.layout.width} px wide, {kit.layout.radius} px corners
            </dd>
          </div>
          <div>
            <dt>logo</dt>
            <dd>{kit.brand.logo_url ? `${kit.brand.logo_url} (${kit.brand.logo_width} px)` : 'none'}</dd>
          </div>
          <div>
            <dt>website</dt>
            <dd>{kit.brand.website_url ?? 'none'}</dd>
          </div>
          <div>
            <dt>social links</dt>
            <dd>{kit.brand.social_links.length === 0 ? 'none' : kit.brand.social_links.map((l) => `${l.network}: ${l.url}`).join(', ')}</dd>
          </div>
        </dl>
      )}
    </section>
  );
}
