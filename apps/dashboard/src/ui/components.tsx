import type { ComponentChildren } from 'preact';
import type { Action } from './hooks';
import type { Broadcast } from './api';
import { formatDateTime, formatNumber } from './locale';

export function Feedback({ action }: { action: Pick<Action, 'error' | 'notice'> }) {
  return (
    <>
      {action.error && <ErrorMessage message={action.error} />}
      {action.notice && (
        <p class="notice" role="status">
          {action.notice}
        </p>
      )}
    </>
  );
}

export function ErrorMessage({ message }: { message: string }) {
  return (
    <p class="error" role="alert">
      {message}
    </p>
  );
}

/** What an empty list means and what to do next. */
export function Empty({ children }: { children: ComponentChildren }) {
  return <div class="empty">{children}</div>;
}

export function Loading() {
  return (
    <p class="muted" aria-live="polite">
      Loading…
    </p>
  );
}

export function StatusBadge({ status }: { status: string }) {
  return <span class={`badge badge-${status}`}>{status.replace('_', ' ')}</span>;
}

/** Recipients processed so far, as the API counts them (percentage_complete). */
export function Progress({ broadcast }: { broadcast: Broadcast }) {
  const pct = Math.max(0, Math.min(100, broadcast.percentage_complete));
  return (
    <span class="progress">
      <progress max={100} value={pct} aria-label={`${broadcast.name ?? broadcast.subject}: ${pct}% sent`} />
      <span class="progress-text">
        {pct}% · {broadcast.broadcast_recipients_count}/{broadcast.total_recipients}
      </span>
    </span>
  );
}

export function Pager({
  offset,
  limit,
  count,
  total,
  onChange,
}: {
  offset: number;
  limit: number;
  count: number;
  total?: number;
  onChange(offset: number): void;
}) {
  const hasNext = total === undefined ? count === limit : offset + count < total;
  if (offset === 0 && !hasNext) return null;
  return (
    <nav class="pager" aria-label="Pages">
      <button type="button" disabled={offset === 0} onClick={() => onChange(Math.max(0, offset - limit))}>
        Previous
      </button>
      <span>
        {count === 0 ? 0 : offset + 1}–{offset + count}
        {total === undefined ? '' : ` of ${total}`}
      </span>
      <button type="button" disabled={!hasNext} onClick={() => onChange(offset + limit)}>
        Next
      </button>
    </nav>
  );
}

/** An API timestamp in the app's locale and the browser's time zone (docs/dashboard.md, "Locale"). */
export function formatTime(value: string | null | undefined): string {
  if (!value) return '—';
  const date = new Date(value);
  if (Number.isNaN(date.getTime())) return value;
  return formatDateTime(date);
}

/** A count with thousands separators, in the app's locale (never a tag Intl refuses). */
export { formatNumber };

export function Field({ label, children, hint }: { label: string; children: ComponentChildren; hint?: string }) {
  return (
    <label class="field">
      <span class="field-label">{label}</span>
      {children}
      {hint && <span class="hint">{hint}</span>}
    </label>
  );
}
