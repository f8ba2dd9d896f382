/**
 * When a widget may show itself (docs/opt-in-forms.md, "Widgets and triggers"): frequency and
 * devices, decided from what the browser remembers. Pure, so the browser bundle and the unit
 * tests share it; it imports nothing.
 */
import type { Device, Frequency } from './render-model';

const DAY_MS = 24 * 60 * 60 * 1000;

/** What the browser remembers of one form: the last time it was shown, and whether in this session. */
export interface ShowMemory {
  /** Epoch ms of the last showing (localStorage), or null. */
  lastShownAt: number | null;
  /** Shown in this browser session already (sessionStorage). */
  shownThisSession: boolean;
  /** The visitor signed up through this form (localStorage). */
  submitted: boolean;
}

/** Whether a triggered widget may show now. `always` and `every_visit` mean every page view. */
export function frequencyAllows(frequency: Frequency, memory: ShowMemory, now: number): boolean {
  if (memory.submitted && frequency !== 'always') return false;
  switch (frequency) {
    case 'once_per_session':
      return !memory.shownThisSession;
    case 'once_per_day':
      return memory.lastShownAt === null || now - memory.lastShownAt >= DAY_MS;
    case 'once_per_week':
      return memory.lastShownAt === null || now - memory.lastShownAt >= 7 * DAY_MS;
    case 'once':
      return memory.lastShownAt === null;
    default:
      return true;
  }
}

/** Up to this many CSS pixels wide is a mobile device. */
export const MOBILE_MAX_WIDTH = 767;
/** Up to this many (and wider than a mobile) is a tablet; wider is a desktop. */
export const TABLET_MAX_WIDTH = 1024;

export function deviceOf(viewportWidth: number): Device {
  return viewportWidth <= MOBILE_MAX_WIDTH ? 'mobile' : viewportWidth <= TABLET_MAX_WIDTH ? 'tablet' : 'desktop';
}

/** Whether the widget shows on a window this wide; an empty list means every device. */
export function deviceAllows(devices: readonly Device[], viewportWidth: number): boolean {
  return devices.length === 0 || devices.includes(deviceOf(viewportWidth));
}

/** How far down the page the bottom of the viewport is, in percent (100 for a page that does not scroll). */
export function scrolledPercent(scrollTop: number, viewportHeight: number, documentHeight: number): number {
  if (documentHeight <= viewportHeight) return 100;
  return Math.min(100, ((scrollTop + viewportHeight) / documentHeight) * 100);
}
