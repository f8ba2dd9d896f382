import { Field } from '../components';

const FREQUENCIES = ['every_visit', 'always', 'once_per_session', 'once_per_day', 'once_per_week', 'once'] as const;
const TRIGGERS = ['immediate', 'time_delay', 'scroll', 'exit_intent'] as const;
const DEVICES = ['desktop', 'tablet', 'mobile'] as const;

/** When and where a widget shows (trigger_settings, docs/opt-in-forms.md "Widgets and triggers"). */
export function TriggerFields({ value, onChange }: { value: Record<string, unknown>; onChange(v: Record<string, unknown>): void }) {
  const devices = Array.isArray(value.devices) ? (value.devices as string[]) : [];
  return (
    <fieldset class="stack">
      <legend>Trigger</legend>
      <div class="row">
        <Field label="Show">
          <select name="trigger" value={String(value.trigger ?? 'immediate')} onChange={(e) => onChange({ ...value, trigger: e.currentTarget.value })}>
            {TRIGGERS.map((t) => (
              <option key={t} value={t}>
                {t.replace(/_/g, ' ')}
              </option>
            ))}
          </select>
        </Field>
        <Field label="Delay (seconds)">
          <input
            name="delay_seconds"
            type="number"
            min={0}
            value={String(value.delay_seconds ?? 0)}
            onInput={(e) => onChange({ ...value, delay_seconds: Number(e.currentTarget.value) })}
          />
        </Field>
        <Field label="Scroll (%)">
          <input
            name="scroll_percentage"
            type="number"
            min={0}
            max={100}
            value={String(value.scroll_percentage ?? 50)}
            onInput={(e) => onChange({ ...value, scroll_percentage: Number(e.currentTarget.value) })}
          />
        </Field>
        <Field label="Frequency">
          <select name="frequency" value={String(value.frequency ?? 'every_visit')} onChange={(e) => onChange({ ...value, frequency: e.currentTarget.value })}>
            {FREQUENCIES.map((t) => (
              <option key={t} value={t}>
                {t.replace(/_/g, ' ')}
              </option>
            ))}
          </select>
        </Field>
      </div>
      <fieldset class="checks">
        <legend>Devices (none ticked: all)</legend>
        {DEVICES.map((d) => (
          <label key={d}>
            <input
              type="checkbox"
              name="devices"
              value={d}
              checked={devices.includes(d)}
              onChange={(e) => onChange({ ...value, devices: e.currentTarget.checked ? [...devices, d] : devices.filter((x) => x !== d) })}
            />{' '}
            {d}
          </label>
        ))}
      </fieldset>
    </fieldset>
  );
}

/** The submission protections (security_settings, docs/opt-in-forms.md "Protections"). */
export function SecurityFields({ value, onChange }: { value: Record<string, unknown>; onChange(v: Record<string, unknown>): void }) {
  const flag = (key: string, text: string) => (
    <label>
      <input type="checkbox" name={key} checked={value[key] === true} onChange={(e) => onChange({ ...value, [key]: e.currentTarget.checked })} /> {text}
    </label>
  );
  const num = (key: string, text: string) => (
    <Field label={text}>
      <input name={key} type="number" min={0} value={String(value[key] ?? '')} onInput={(e) => onChange({ ...value, [key]: Number(e.currentTarget.value) })} />
    </Field>
  );
  return (
    <fieldset class="stack">
      <legend>Security</legend>
      <div class="checks">
        {flag('honeypot', 'Honeypot field')}
        {flag('time_validation', 'Refuse too-fast submissions')}
        {flag('rate_limit', 'Limit submissions per address')}
        {flag('turnstile', 'Cloudflare Turnstile')}
      </div>
      <div class="row">
        {num('min_submit_seconds', 'Minimum seconds before submit')}
        {num('rate_limit_max', 'Submissions per window')}
        {num('rate_limit_window_minutes', 'Window (minutes)')}
        <Field label="Turnstile site key">
          <input
            name="turnstile_site_key"
            value={String(value.turnstile_site_key ?? '')}
            onInput={(e) => onChange({ ...value, turnstile_site_key: e.currentTarget.value })}
          />
        </Field>
      </div>
    </fieldset>
  );
}
